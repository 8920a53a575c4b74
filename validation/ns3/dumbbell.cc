// The wavecc dumbbell in ns-3 (3.37, Debian's libns3-dev): one bulk TCP flow,
//
//   sender --(access: 10 Gb/s, 0 s)-- router --(bottleneck: rate, delay)-- receiver
//
// with a drop-tail queue limited in bytes on the router's bottleneck device (no queue
// disc), per-byte random loss (RateErrorModel) on the receiver's bottleneck device, so on
// data only, and the ACKs back over the same point-to-point links. Every other queue is
// large enough never to drop.
//
// Writes OUT/timeseries.csv (one row per interval) and OUT/summary.json. Build with
// build.sh next to this file; `wavecc validate ns3 --regenerate` runs it on the grid.

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"
#include "ns3/version-defines.h"

#include <chrono>
#include <cmath>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <sstream>
#include <string>

using namespace ns3;

namespace
{

const uint32_t kMss = 1400;
const uint32_t kSocketBuffer = 6553600;

// ns-3 3.37's TCP variants by the names the command line takes. Westwood+ is TcpWestwood
// with ProtocolType WestwoodPlus in 3.37 (TcpWestwoodPlus is a type of its own only in
// later releases).
const std::map<std::string, std::string> kTypeIds = {
    {"TcpNewReno", "ns3::TcpNewReno"},
    {"TcpLinuxReno", "ns3::TcpLinuxReno"},
    {"TcpCubic", "ns3::TcpCubic"},
    {"TcpHighSpeed", "ns3::TcpHighSpeed"},
    {"TcpBbr", "ns3::TcpBbr"},
    {"TcpVegas", "ns3::TcpVegas"},
    {"TcpScalable", "ns3::TcpScalable"},
    {"TcpYeah", "ns3::TcpYeah"},
    {"TcpWestwoodPlus", "ns3::TcpWestwood"},
    {"TcpBic", "ns3::TcpBic"},
};

// 32-bit TCP sequence numbers as 64-bit byte offsets: a 20 s run at 1 Gb/s sends 2.5 GB,
// a longer one wraps.
class Unwrapper
{
  public:
    uint64_t operator()(SequenceNumber32 seq)
    {
        uint32_t raw = seq.GetValue();
        if (!m_started)
        {
            m_started = true;
            m_last = raw;
            m_value = raw;
            return m_value;
        }
        int32_t delta = static_cast<int32_t>(raw - m_last);
        m_last = raw;
        m_value += delta;
        return m_value;
    }

  private:
    bool m_started = false;
    uint32_t m_last = 0;
    uint64_t m_value = 0;
};

struct Sent
{
    uint64_t start;  // the segment's first byte
    uint64_t end;    // one past its last byte
    int64_t sentNs;  // first transmission
    bool retransmitted;
};

// The flow's state as the traces report it, and what each interval accumulates.
struct Flow
{
    Unwrapper seq;
    std::deque<Sent> inFlight; // first transmissions not yet cumulatively acknowledged
    uint64_t highTx = 0;       // one past the highest byte sent
    uint64_t highAck = 0;
    bool anyData = false;

    uint32_t cwndBytes = 0;
    double srttMs = std::nan("");  // the socket's RTT trace source
    double lastRttMs = std::nan(""); // last sample of this interval
    double intervalRttSumMs = 0;
    uint64_t intervalRttSamples = 0;
    uint64_t intervalRetrans = 0;

    double rttSumMs = 0;
    uint64_t rttSamples = 0;
    double minRttMs = std::numeric_limits<double>::infinity();
    uint64_t sentSegments = 0;
    uint64_t retransSegments = 0;
    uint64_t randomDrops = 0;
};

Flow g_flow;

void
OnCwnd(uint32_t, uint32_t now)
{
    g_flow.cwndBytes = now;
}

void
OnSrtt(Time, Time now)
{
    g_flow.srttMs = now.GetSeconds() * 1e3;
}

// Data segments leaving the sender: first transmissions are remembered with their send
// time, retransmissions mark what they cover (Karn: no RTT sample from those).
void
OnTx(Ptr<const Packet> packet, const TcpHeader& header, Ptr<const TcpSocketBase>)
{
    uint32_t len = packet->GetSize();
    if (len == 0)
    {
        return;
    }
    Flow& f = g_flow;
    uint64_t start = f.seq(header.GetSequenceNumber());
    uint64_t end = start + len;
    f.sentSegments++;
    if (!f.anyData)
    {
        f.anyData = true;
        f.highTx = start;
        f.highAck = start;
    }
    if (start >= f.highTx)
    {
        f.inFlight.push_back({start, end, Simulator::Now().GetNanoSeconds(), false});
        f.highTx = end;
        return;
    }
    f.retransSegments++;
    f.intervalRetrans++;
    auto it = std::lower_bound(f.inFlight.begin(),
                               f.inFlight.end(),
                               start,
                               [](const Sent& s, uint64_t v) { return s.end <= v; });
    for (; it != f.inFlight.end() && it->start < end; ++it)
    {
        it->retransmitted = true;
    }
}

// ACKs reaching the sender: an ACK that advances the cumulative acknowledgement yields an
// RTT sample from the send time of the oldest newly acknowledged, never retransmitted
// segment, as wavecc takes it (Karn, RFC 6298). Samples are exact to the nanosecond,
// unlike ns-3's own, which come from millisecond timestamps when timestamps are on.
void
OnRx(Ptr<const Packet>, const TcpHeader& header, Ptr<const TcpSocketBase>)
{
    Flow& f = g_flow;
    if (!f.anyData || !(header.GetFlags() & TcpHeader::ACK))
    {
        return;
    }
    uint64_t ack = f.seq(header.GetAckNumber());
    if (ack <= f.highAck || ack > f.highTx)
    {
        return;
    }
    f.highAck = ack;
    int64_t oldest = -1;
    while (!f.inFlight.empty() && f.inFlight.front().end <= ack)
    {
        const Sent& s = f.inFlight.front();
        if (oldest < 0 && !s.retransmitted)
        {
            oldest = s.sentNs;
        }
        f.inFlight.pop_front();
    }
    if (oldest < 0)
    {
        return;
    }
    double rttMs = (Simulator::Now().GetNanoSeconds() - oldest) / 1e6;
    f.lastRttMs = rttMs;
    f.intervalRttSumMs += rttMs;
    f.intervalRttSamples++;
    f.rttSumMs += rttMs;
    f.rttSamples++;
    f.minRttMs = std::min(f.minRttMs, rttMs);
}

void
OnRandomDrop(Ptr<const Packet>)
{
    g_flow.randomDrops++;
}

uint64_t g_overflowDrops = 0;

void
OnOverflowDrop(Ptr<const Packet>)
{
    g_overflowDrops++;
}

struct Sampler
{
    Ptr<PacketSink> sink;
    Ptr<Queue<Packet>> queue;
    int64_t intervalNs;
    int64_t durationNs;
    int64_t lastNs = 0;
    uint64_t lastRx = 0;
    std::ostringstream csv;
};

std::string
Num(double v)
{
    if (!std::isfinite(v))
    {
        return "";
    }
    std::ostringstream s;
    s << std::setprecision(10) << v;
    return s.str();
}

std::string
JsonNum(double v)
{
    return std::isfinite(v) ? Num(v) : "null";
}

void
Sample(Sampler* s)
{
    Flow& f = g_flow;
    int64_t now = Simulator::Now().GetNanoSeconds();
    uint64_t rx = s->sink->GetTotalRx();
    double goodputMbps = (rx - s->lastRx) * 8.0 / ((now - s->lastNs) / 1e9) / 1e6;
    double meanRtt = f.intervalRttSamples ? f.intervalRttSumMs / f.intervalRttSamples : std::nan("");
    s->csv << Num(now / 1e9) << ',' << Num(f.cwndBytes / double(kMss)) << ',' << Num(goodputMbps)
           << ',' << Num(f.intervalRttSamples ? f.lastRttMs : std::nan("")) << ',' << Num(meanRtt)
           << ',' << f.intervalRttSamples << ',' << Num(f.srttMs) << ','
           << s->queue->GetNBytes() << ',' << s->queue->GetNPackets() << ',' << f.intervalRetrans
           << '\n';
    s->lastNs = now;
    s->lastRx = rx;
    f.intervalRttSumMs = 0;
    f.intervalRttSamples = 0;
    f.intervalRetrans = 0;
    if (now < s->durationNs)
    {
        int64_t next = std::min(now + s->intervalNs, s->durationNs);
        Simulator::Schedule(NanoSeconds(next - now), &Sample, s);
    }
}

void
HookSocket(Ptr<BulkSendApplication> app)
{
    Ptr<TcpSocketBase> socket = DynamicCast<TcpSocketBase>(app->GetSocket());
    NS_ABORT_MSG_IF(!socket, "the bulk sender has no TCP socket");
    socket->TraceConnectWithoutContext("CongestionWindow", MakeCallback(&OnCwnd));
    socket->TraceConnectWithoutContext("RTT", MakeCallback(&OnSrtt));
    socket->TraceConnectWithoutContext("Tx", MakeCallback(&OnTx));
    socket->TraceConnectWithoutContext("Rx", MakeCallback(&OnRx));
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string cca = "TcpCubic";
    double rateBps = 1e9;
    double delayS = 0.010;
    uint32_t bufferBytes = 2500000;
    double perByte = 0.0;
    double durationS = 20.0;
    double intervalS = 0.1;
    uint32_t seed = 1;
    std::string out = "ns3-out";

    // The dumbbell's TCP settings. They are defaults set before the command line is
    // parsed, so that ns-3's own --ns3::Type::Attribute=value arguments can change them in
    // an experiment (the references use none). TcpWestwood is used only for Westwood+.
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(kMss));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(kSocketBuffer));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(kSocketBuffer));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::InitialSlowStartThreshold",
                       UintegerValue(std::numeric_limits<uint32_t>::max()));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocketBase::MinRto", TimeValue(Seconds(1.0)));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(true));
    Config::SetDefault("ns3::TcpWestwood::ProtocolType", StringValue("WestwoodPlus"));

    CommandLine cmd(__FILE__);
    std::string names;
    for (const auto& [name, _] : kTypeIds)
    {
        names += (names.empty() ? "" : ", ") + name;
    }
    cmd.AddValue("cca", "congestion control: " + names, cca);
    cmd.AddValue("rate_bps", "bottleneck rate (bit/s)", rateBps);
    cmd.AddValue("delay_s", "bottleneck one-way delay (s)", delayS);
    cmd.AddValue("buffer_bytes", "bottleneck drop-tail limit (bytes)", bufferBytes);
    cmd.AddValue("per_byte", "per-byte loss probability on data", perByte);
    cmd.AddValue("duration_s", "simulated time (s)", durationS);
    cmd.AddValue("interval_s", "time-series interval (s)", intervalS);
    cmd.AddValue("seed", "run number of ns-3's random streams", seed);
    cmd.AddValue("out", "output directory", out);
    cmd.Parse(argc, argv);

    auto tid = kTypeIds.find(cca);
    if (tid == kTypeIds.end())
    {
        std::cerr << "dumbbell: unknown --cca " << cca << " (known: " << names << ")\n";
        return 2;
    }
    if (!(rateBps > 0 && delayS >= 0 && durationS > 0 && intervalS > 0 && perByte >= 0 &&
          perByte < 1 && bufferBytes > 0))
    {
        std::cerr << "dumbbell: bad arguments (need rate_bps > 0, delay_s >= 0, duration_s > 0, "
                     "interval_s > 0, 0 <= per_byte < 1, buffer_bytes > 0)\n";
        return 2;
    }

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    Config::SetDefault("ns3::TcpL4Protocol::SocketType", StringValue(tid->second));
    if (cca == "TcpBbr")
    {
        Config::SetDefault("ns3::TcpSocketState::EnablePacing", BooleanValue(true));
    }

    NodeContainer nodes;
    nodes.Create(3);
    Ptr<Node> sender = nodes.Get(0);
    Ptr<Node> router = nodes.Get(1);
    Ptr<Node> receiver = nodes.Get(2);

    // Queues that must never drop: at most a few thousand packets are ever in flight.
    const std::string huge = "1000000p";

    PointToPointHelper access;
    access.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(10e9))));
    access.SetChannelAttribute("Delay", TimeValue(Seconds(0)));
    access.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize(huge)));
    NetDeviceContainer accessDevs = access.Install(sender, router);

    PointToPointHelper bottleneck;
    bottleneck.SetDeviceAttribute("DataRate", DataRateValue(DataRate(uint64_t(rateBps))));
    bottleneck.SetChannelAttribute("Delay", TimeValue(Seconds(delayS)));
    bottleneck.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", QueueSizeValue(QueueSize(huge)));
    NetDeviceContainer bottleneckDevs = bottleneck.Install(router, receiver);

    Ptr<PointToPointNetDevice> routerOut =
        DynamicCast<PointToPointNetDevice>(bottleneckDevs.Get(0));
    Ptr<PointToPointNetDevice> receiverIn =
        DynamicCast<PointToPointNetDevice>(bottleneckDevs.Get(1));
    Ptr<Queue<Packet>> queue = routerOut->GetQueue();
    queue->SetMaxSize(QueueSize(QueueSizeUnit::BYTES, bufferBytes));

    if (perByte > 0)
    {
        Ptr<RateErrorModel> loss = CreateObject<RateErrorModel>();
        loss->SetUnit(RateErrorModel::ERROR_UNIT_BYTE);
        loss->SetRate(perByte);
        Ptr<UniformRandomVariable> uniform = CreateObject<UniformRandomVariable>();
        uniform->SetStream(1);
        loss->SetRandomVariable(uniform);
        receiverIn->SetReceiveErrorModel(loss);
        receiverIn->TraceConnectWithoutContext("PhyRxDrop", MakeCallback(&OnRandomDrop));
    }

    InternetStackHelper stack;
    stack.Install(nodes);
    Ipv4AddressHelper address;
    address.SetBase("10.1.1.0", "255.255.255.0");
    address.Assign(accessDevs);
    address.SetBase("10.1.2.0", "255.255.255.0");
    Ipv4InterfaceContainer bottleneckIfs = address.Assign(bottleneckDevs);
    // Assigning addresses installs ns-3's default queue disc (pfifo_fast) on every device;
    // the dumbbell has only the devices' drop-tail queues.
    TrafficControlHelper tch;
    tch.Uninstall(accessDevs);
    tch.Uninstall(bottleneckDevs);
    // Without a queue disc the traffic-control layer drops a packet when the device has
    // stopped its queue, which it does while less than one MTU (1500 bytes) is free: that
    // is where the bottleneck's overflow drops happen (a full device queue would count
    // its own drops too; both are counted).
    bool hooked = router->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
        "TcDrop",
        MakeCallback(&OnOverflowDrop));
    hooked = queue->TraceConnectWithoutContext("Drop", MakeCallback(&OnOverflowDrop)) && hooked;
    NS_ABORT_MSG_IF(!hooked, "cannot trace the bottleneck's drops");
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();

    const uint16_t port = 5000;
    PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer sinkApps = sinkHelper.Install(receiver);
    sinkApps.Start(Seconds(0));

    BulkSendHelper bulk("ns3::TcpSocketFactory",
                        InetSocketAddress(bottleneckIfs.GetAddress(1), port));
    bulk.SetAttribute("MaxBytes", UintegerValue(0));
    bulk.SetAttribute("SendSize", UintegerValue(kMss));
    ApplicationContainer bulkApps = bulk.Install(sender);
    bulkApps.Start(Seconds(0));
    // The socket exists once the application has started.
    Simulator::Schedule(NanoSeconds(1),
                        &HookSocket,
                        DynamicCast<BulkSendApplication>(bulkApps.Get(0)));

    Sampler sampler;
    sampler.sink = DynamicCast<PacketSink>(sinkApps.Get(0));
    sampler.queue = queue;
    sampler.intervalNs = std::llround(intervalS * 1e9);
    sampler.durationNs = std::llround(durationS * 1e9);
    sampler.csv << "t_s,cwnd_segments,goodput_mbps,rtt_ms,rtt_mean_ms,rtt_samples,srtt_ms,"
                   "queue_bytes,queue_packets,retransmits\n";
    Simulator::Schedule(NanoSeconds(std::min(sampler.intervalNs, sampler.durationNs)),
                        &Sample,
                        &sampler);
    // One nanosecond past the end, so that the last sample, at the end itself, runs.
    Simulator::Stop(NanoSeconds(sampler.durationNs + 1));

    auto wallStart = std::chrono::steady_clock::now();
    Simulator::Run();
    double wallS =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();

    const Flow& f = g_flow;
    uint64_t totalRx = sampler.sink->GetTotalRx();
    std::ostringstream version;
    version << NS3_VERSION_MAJOR << '.' << NS3_VERSION_MINOR;

    std::filesystem::create_directories(out);
    {
        std::ofstream csv(out + "/timeseries.csv");
        csv << sampler.csv.str();
        NS_ABORT_MSG_IF(!csv, "cannot write " << out << "/timeseries.csv");
    }
    {
        std::ofstream json(out + "/summary.json");
        json << "{\n"
             << "  \"simulator\": \"ns-3\",\n"
             << "  \"ns3_version\": \"" << version.str() << "\",\n"
             << "  \"ns3_build_profile\": \"" << NS3_VERSION_BUILD_PROFILE << "\",\n"
             << "  \"cca\": \"" << cca << "\",\n"
             << "  \"ns3_type\": \"" << tid->second << "\",\n"
             << "  \"rate_bps\": " << JsonNum(rateBps) << ",\n"
             << "  \"delay_s\": " << JsonNum(delayS) << ",\n"
             << "  \"buffer_bytes\": " << bufferBytes << ",\n"
             << "  \"per_byte\": " << JsonNum(perByte) << ",\n"
             << "  \"duration_s\": " << JsonNum(durationS) << ",\n"
             << "  \"interval_s\": " << JsonNum(intervalS) << ",\n"
             << "  \"seed\": " << seed << ",\n"
             << "  \"goodput_mbps\": " << JsonNum(totalRx * 8.0 / durationS / 1e6) << ",\n"
             << "  \"received_bytes\": " << totalRx << ",\n"
             << "  \"mean_rtt_ms\": "
             << JsonNum(f.rttSamples ? f.rttSumMs / f.rttSamples : std::nan("")) << ",\n"
             << "  \"min_rtt_ms\": " << JsonNum(f.minRttMs) << ",\n"
             << "  \"rtt_samples\": " << f.rttSamples << ",\n"
             << "  \"sent_segments\": " << f.sentSegments << ",\n"
             << "  \"retransmitted_segments\": " << f.retransSegments << ",\n"
             << "  \"drops_overflow\": " << g_overflowDrops << ",\n"
             << "  \"drops_random\": " << f.randomDrops << ",\n"
             << "  \"wall_time_s\": " << JsonNum(wallS) << ",\n"
             << "  \"sim_s_per_wall_s\": " << JsonNum(durationS / wallS) << "\n"
             << "}\n";
        NS_ABORT_MSG_IF(!json, "cannot write " << out << "/summary.json");
    }
    Simulator::Destroy();
    return 0;
}
