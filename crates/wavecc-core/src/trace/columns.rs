//! The trace columns, declared once: each trace struct is written through
//! [`trace_table!`], which makes its fields (one `Vec` per column) and its
//! [`Column`] table (name, type, unit, doc) from the same lines. The binding hands
//! the tables to Python, which types its DataFrames from them.

use serde::Serialize;

/// A column's element type as the Python side stores it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Dtype {
    Float64,
    Int64,
    Bool,
    Str,
}

/// One column of a trace.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Column {
    pub name: &'static str,
    pub dtype: Dtype,
    /// The unit of its values ("" for counts, names and flags).
    pub unit: &'static str,
    pub doc: &'static str,
    /// Bytes one element takes in the trace struct (the memory estimate's unit).
    #[serde(skip)]
    pub bytes: usize,
}

/// Bytes one row of a trace takes: the sum of its columns' element sizes.
pub const fn row_bytes(columns: &[Column]) -> usize {
    let mut sum = 0;
    let mut i = 0;
    while i < columns.len() {
        sum += columns[i].bytes;
        i += 1;
    }
    sum
}

/// The Rust element types a column may hold, and how Python stores each.
pub trait ColumnType {
    const DTYPE: Dtype;
}

macro_rules! column_types {
    ($($ty:ty => $dtype:ident),* $(,)?) => {
        $(impl ColumnType for $ty {
            const DTYPE: Dtype = Dtype::$dtype;
        })*
    };
}

column_types!(
    f64 => Float64,
    u8 => Int64,
    u32 => Int64,
    u64 => Int64,
    i64 => Int64,
    bool => Bool,
    &'static str => Str,
    String => Str,
);

/// Declares a trace struct, one `Vec` per column, and its `COLUMNS` table. Each
/// column is `/// doc` then `name: element type = "unit",`. With `, row NAME` after
/// the struct's name it also declares the row struct `NAME`, one field per column,
/// and the trace's `push(row)`, for a trace whose rows are made in one place.
macro_rules! trace_table {
    (
        $(#[doc = $table_doc:literal])*
        pub struct $table:ident, row $row:ident {
            $( $(#[doc = $doc:literal])+ $name:ident: $ty:ty = $unit:literal, )*
        }
    ) => {
        trace_table! {
            $(#[doc = $table_doc])*
            pub struct $table {
                $( $(#[doc = $doc])+ $name: $ty = $unit, )*
            }
        }

        #[doc = concat!("One row of [`", stringify!($table), "`].")]
        #[derive(Debug, Clone, PartialEq)]
        pub struct $row {
            $( $(#[doc = $doc])+ pub $name: $ty, )*
        }

        impl $table {
            /// Appends a row.
            pub fn push(&mut self, row: $row) {
                $( self.$name.push(row.$name); )*
            }
        }
    };
    (
        $(#[doc = $table_doc:literal])*
        pub struct $table:ident {
            $( $(#[doc = $doc:literal])+ $name:ident: $ty:ty = $unit:literal, )*
        }
    ) => {
        $(#[doc = $table_doc])*
        #[derive(Debug, Default, Clone, serde::Serialize, PartialEq)]
        pub struct $table {
            $( $(#[doc = $doc])+ pub $name: Vec<$ty>, )*
        }

        impl $table {
            /// This trace's columns, in order.
            pub const COLUMNS: &'static [$crate::trace::Column] = &[$(
                $crate::trace::Column {
                    name: stringify!($name),
                    dtype: <$ty as $crate::trace::ColumnType>::DTYPE,
                    unit: $unit,
                    doc: concat!($($doc),+),
                    bytes: size_of::<$ty>(),
                },
            )*];
        }
    };
}

#[cfg(test)]
mod tests {
    use super::super::TRACE_COLUMNS;
    use super::*;
    use std::collections::{BTreeMap, BTreeSet};

    /// The tables name the traces and their columns exactly as the output JSON does.
    #[test]
    fn tables_match_the_serialised_output() {
        let out = crate::run(&crate::Config::from_toml("duration_s = 0.2\n[[flows]]\n").unwrap());
        let json = serde_json::to_value(&out).unwrap();
        for &(table, columns) in TRACE_COLUMNS {
            let keys: BTreeSet<&str> = json[table]
                .as_object()
                .unwrap()
                .keys()
                .map(|k| k.as_str())
                .collect();
            let names: BTreeSet<&str> = columns.iter().map(|c| c.name).collect();
            assert_eq!(keys, names, "{table}");
        }
        let traces = json.as_object().unwrap().len();
        assert_eq!(
            traces,
            TRACE_COLUMNS.len() + 1,
            "every trace but the summary has a table"
        );
    }

    trace_table! {
        /// A table with its row struct, for the test.
        pub struct Pairs, row Pair {
            /// First.
            a: f64 = "s",
            /// Second.
            b: u32 = "",
        }
    }

    /// A pushed row lands once in every column, each value in its own.
    #[test]
    fn a_row_is_pushed_into_every_column() {
        let mut t = Pairs::default();
        t.push(Pair { a: 0.5, b: 7 });
        t.push(Pair { a: 1.5, b: 8 });
        assert_eq!(t.a, [0.5, 1.5]);
        assert_eq!(t.b, [7, 8]);
        assert_eq!(Pairs::COLUMNS.len(), 2);
    }

    /// Python types a column by its name alone, so a name means one type everywhere,
    /// and every column says what it holds.
    #[test]
    fn a_name_has_one_type_and_a_doc() {
        let mut seen: BTreeMap<&str, Dtype> = BTreeMap::new();
        for &(table, columns) in TRACE_COLUMNS {
            for c in columns {
                let first = *seen.entry(c.name).or_insert(c.dtype);
                assert_eq!(first, c.dtype, "{table}.{}", c.name);
                assert!(!c.doc.trim().is_empty(), "{table}.{} has no doc", c.name);
            }
        }
        assert_eq!(seen["los"], Dtype::Bool);
        assert_eq!(seen["ca_state"], Dtype::Str);
        assert_eq!(seen["mcs"], Dtype::Int64);
        assert_eq!(seen["goodput_mbps"], Dtype::Float64);
    }
}
