"""Packet traces (`hoplab run --pcap`, `hoplab.run(..., pcap=...)`), read
back with a standard pure-Python reader (dpkt): what the trace says must
be what the run report says, frame for frame."""

from __future__ import annotations

import shutil
import subprocess
import zlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

import dpkt
import pytest

import hoplab
from conftest import EXAMPLES, run_cli

SEMITCP_CHAIN = EXAMPLES / "semitcp-chain-14hop.toml"
# Long enough for routes, RTSCs and CTSCs, short enough for a test.
DURATION_S = 8.0
SEGMENT_BYTES = 512

# Frame control: (type, subtype) of the frames hoplab sends.
RTS, CTS, ACK, DATA = (1, 11), (1, 12), (1, 13), (2, 0)
KIND = {RTS: "rts", CTS: "cts", ACK: "ack", DATA: "data"}


def mac_of(node: int) -> bytes:
    """Node i's MAC address: 02:00 and i + 1 (docs/traces.md)."""
    return b"\x02\x00" + (node + 1).to_bytes(4, "big")


def node_of(mac: bytes) -> int:
    assert mac[:2] == b"\x02\x00", mac.hex(":")
    return int.from_bytes(mac[2:], "big") - 1


@dataclass
class Record:
    time: Decimal
    captured: int
    length: int
    data: bytes

    @property
    def radiotap(self) -> Any:
        return dpkt.radiotap.Radiotap(self.data)

    @property
    def mpdu(self) -> bytes:
        """The 802.11 frame as captured (radiotap stripped)."""
        return self.data[self.data[2] | self.data[3] << 8:]

    @property
    def whole(self) -> bool:
        return self.captured == self.length

    @property
    def wlan(self) -> Any:
        """The 802.11 frame, its FCS split off when it was captured."""
        return dpkt.ieee80211.IEEE80211(self.mpdu, fcs=self.whole)

    @property
    def kind(self) -> str:
        fc = self.mpdu[0]
        return KIND[((fc >> 2) & 3, fc >> 4)]

    @property
    def order(self) -> bool:
        return bool(self.mpdu[1] & 0x80)

    @property
    def retry(self) -> bool:
        return bool(self.mpdu[1] & 0x08)

    @property
    def transmitter(self) -> int | None:
        """TA (RTS, DATA); CTS and ACK carry none."""
        return node_of(self.mpdu[10:16]) if self.kind in ("rts", "data") else None

    @property
    def receiver(self) -> bytes:
        return self.mpdu[4:10]

    def ip(self) -> Any:
        """The IPv4 packet of a DATA frame (after its LLC/SNAP header)."""
        assert self.kind == "data"
        llc = dpkt.llc.LLC(self.mpdu[24:])
        assert (llc.dsap, llc.ssap, llc.type) == (0xAA, 0xAA, dpkt.ethernet.ETH_TYPE_IP)
        packet = llc.data
        assert isinstance(packet, dpkt.ip.IP), type(packet)
        return packet


def records(path: Path) -> list[Record]:
    """Every record of a trace: read by dpkt's pcap.Reader, which must take
    the file whole, with each record's lengths from its header (read with
    dpkt's own header class)."""
    with path.open("rb") as f:
        reader = dpkt.pcap.Reader(f)
        assert reader.datalink() == 127, "LINKTYPE_IEEE802_11_RADIOTAP"
        read = list(reader)
    raw = path.read_bytes()
    assert dpkt.pcap.LEFileHdr(raw[:24]).magic == 0xA1B23C4D, "nanosecond pcap, little-endian"
    out, at = [], 24
    for time, data in read:
        header = dpkt.pcap.LEPktHdr(raw[at:at + 16])
        assert header.caplen == len(data) <= header.len
        out.append(Record(time, header.caplen, header.len, bytes(data)))
        at += 16 + header.caplen
    assert at == len(raw), "nothing after the last record"
    return out


def tcp_flows(recs: list[Record]) -> Iterator[tuple[Record, Any, Any]]:
    for r in recs:
        if r.kind == "data":
            ip = r.ip()
            if isinstance(ip.data, dpkt.tcp.TCP):
                yield r, ip, ip.data


def semitcp_run(tmp_path: Path, name: str = "trace.pcap", **sets: Any) -> tuple[hoplab.RunResult, Path]:
    scenario = hoplab.load_scenario(SEMITCP_CHAIN).set("duration_s", DURATION_S).set("warmup_s", 1.0)
    for key, value in sets.items():
        scenario.set(key.replace("__", "."), value)
    path = tmp_path / name
    return hoplab.run(scenario, pcap=path), path


@pytest.fixture(scope="module")
def traced(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path, list[Record]]:
    result, path = semitcp_run(tmp_path_factory.mktemp("pcap"))
    return result.to_dict(), path, records(path)


def test_the_trace_counts_what_the_report_counts(traced: tuple[dict[str, Any], Path, list[Record]]) -> None:
    report, _, recs = traced
    rts, rtsc, data = Counter[int](), Counter[int](), Counter[int]()
    for r in recs:
        node = r.transmitter
        if r.kind == "rts" and node is not None:
            rts[node] += 1
            rtsc[node] += r.order
        elif r.kind == "data" and node is not None:
            data[node] += 1
            assert not r.order, "the order bit marks RTS and CTS only"
    ordered_cts = sum(r.order for r in recs if r.kind == "cts")
    for node in report["nodes"]:
        i = node["id"]
        assert rts[i] == node["frames_sent"]["rts"] == node["rts_sent"], f"node {i}: RTS"
        assert rtsc[i] == node["rtsc_sent"], f"node {i}: RTSC (RTS with the order bit)"
        assert data[i] == node["frames_sent"]["data"], f"node {i}: DATA"
    assert sum(rtsc.values()) > 0 and ordered_cts > 0, "a semi-TCP chain marks some RTS and CTS"
    # CTS and ACK name no transmitter: their totals match.
    assert ordered_cts == sum(n["ctsc_sent"] for n in report["nodes"])
    for kind in ("cts", "ack"):
        assert sum(r.kind == kind for r in recs) == sum(n["frames_sent"][kind] for n in report["nodes"]), kind
    assert len(recs) == sum(sum(n["frames_sent"].values()) for n in report["nodes"])


def test_timestamps_never_go_backwards_and_tsft_follows_them(traced: tuple[dict[str, Any], Path, list[Record]]) -> None:
    _, _, recs = traced
    times = [r.time for r in recs]
    assert times == sorted(times)
    assert times[0] >= 0 and times[-1] < DURATION_S
    for r in recs:
        rt = r.radiotap
        assert rt.length == 22
        assert rt.flags.val == 0x10, "FCS at the end, not bad"
        # TSFT: the MPDU's first bit, after the 192 us PLCP preamble and header.
        assert rt.tsft.usecs == (int(r.time * 10**9) + 192_000) // 1000
        assert rt.channel.freq == 914
        assert rt.rate.val == 4, "2 Mbit/s, in 500 kbit/s units"


def test_data_frames_carry_ipv4_and_tcp_with_rising_sequence_numbers(
        traced: tuple[dict[str, Any], Path, list[Record]]) -> None:
    report, _, recs = traced
    flow = report["flows"][0]
    src, dst = bytes([10, 0, 0, flow["src"] + 1]), f"10.0.0.{flow['dst'] + 1}"
    first_seen: list[int] = []
    seen: set[int] = set()
    acks = 0
    segments = 0
    for r, ip, tcp in tcp_flows(recs):
        assert ip.v == 4 and ip.p == dpkt.ip.IP_PROTO_TCP
        if ip.src == src:
            assert (tcp.sport, tcp.dport) == (49152, 9)
            assert dpkt.utils.inet_to_str(ip.dst) == dst
            assert tcp.flags & dpkt.tcp.TH_ACK and tcp.ack == 1
            assert (tcp.seq - 1) % SEGMENT_BYTES == 0
            # Cut after the headers: the 512 payload bytes and the FCS are not captured.
            assert not r.whole and r.length - r.captured == SEGMENT_BYTES + 4
            assert ip.len == 20 + 20 + SEGMENT_BYTES
            segments += 1
            if tcp.seq not in seen:
                seen.add(tcp.seq)
                first_seen.append(tcp.seq)
        else:
            assert (tcp.sport, tcp.dport) == (9, 49152) and tcp.flags == dpkt.tcp.TH_ACK
            assert (tcp.ack - 1) % SEGMENT_BYTES == 0 and r.whole
            acks += 1
    assert segments > 100 and acks > 50
    assert first_seen == sorted(first_seen), "each new segment has a higher sequence number than those before it"
    assert first_seen[0] == 1


def test_aodv_travels_as_udp_654_in_rfc_3561_format(traced: tuple[dict[str, Any], Path, list[Record]]) -> None:
    report, _, recs = traced
    kinds: Counter[int] = Counter()
    # A message is one packet: its MAC retries repeat its IP identification.
    messages: set[tuple[int | None, int, int]] = set()
    for r in recs:
        if r.kind != "data":
            continue
        ip = r.ip()
        if isinstance(ip.data, dpkt.udp.UDP):
            udp = ip.data
            assert (udp.sport, udp.dport) == (654, 654)
            assert r.whole, "routing messages are captured whole"
            message = bytes(udp.data)
            if (r.transmitter, ip.id, message[0]) not in messages:
                messages.add((r.transmitter, ip.id, message[0]))
                kinds[message[0]] += 1
            assert len(message) == {1: 24, 2: 20}.get(message[0], len(message))
            if message[0] == 1:  # a RREQ is broadcast, with its originator's address at 16
                assert r.receiver == b"\xff" * 6 and dpkt.utils.inet_to_str(ip.dst) == "255.255.255.255"
                assert message[16:20] == bytes([10, 0, 0, 1])
    assert kinds[1] > 0 and kinds[2] > 0, "route requests and replies"
    sent = Counter[str]()
    for node in report["nodes"]:
        sent.update(node.get("routing_messages_sent", {}))
    assert kinds[1] == sent["rreq"] and kinds[2] == sent["rrep"] + sent["hello"]


def test_every_whole_frame_has_a_good_fcs(traced: tuple[dict[str, Any], Path, list[Record]]) -> None:
    _, _, recs = traced
    whole = [r for r in recs if r.whole]
    assert len(whole) > len(recs) / 2
    for r in whole:
        assert zlib.crc32(r.mpdu[:-4]).to_bytes(4, "little") == r.mpdu[-4:]
        assert r.wlan.fcs_present


def test_two_runs_write_identical_files_and_tracing_changes_no_result(tmp_path: Path) -> None:
    one, a = semitcp_run(tmp_path, "a.pcap")
    two, b = semitcp_run(tmp_path, "b.pcap")
    assert a.read_bytes() == b.read_bytes()
    untraced = hoplab.run(hoplab.load_scenario(SEMITCP_CHAIN).set("duration_s", DURATION_S).set("warmup_s", 1.0))
    for result in (one, two):
        report = result.to_dict()
        report.pop("wall_seconds")
        expected = untraced.to_dict()
        expected.pop("wall_seconds")
        assert report == expected
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.pcap", "b.pcap"], "no temporary file left"


def test_nodes_and_time_window_select_frames(tmp_path: Path, traced: tuple[dict[str, Any], Path, list[Record]]) -> None:
    _, _, everything = traced
    _, path = semitcp_run(tmp_path, trace__nodes=[3, 7], trace__start_s=2.5, trace__stop_s=6.0)
    chosen = records(path)
    assert chosen and all(Decimal("2.5") <= r.time < 6 for r in chosen)
    assert {r.transmitter for r in chosen if r.transmitter is not None} == {3, 7}
    # The chosen records are the full trace's, byte for byte.
    full = Counter((r.time, r.data) for r in everything)
    assert all(full[(r.time, r.data)] for r in chosen)
    expected = [r for r in everything if Decimal("2.5") <= r.time < 6 and r.transmitter in (3, 7)]
    assert [r for r in chosen if r.transmitter is not None] == expected


def test_payload_writes_frames_whole(tmp_path: Path) -> None:
    _, path = semitcp_run(tmp_path, trace__payload=True, trace__stop_s=4.0)
    recs = records(path)
    assert all(r.whole for r in recs)
    segments = [ip for _, ip, tcp in tcp_flows(recs) if len(tcp.data)]
    assert segments and all(bytes(ip.data.data) == bytes(SEGMENT_BYTES) for ip in segments)
    for r in recs:
        assert zlib.crc32(r.mpdu[:-4]).to_bytes(4, "little") == r.mpdu[-4:]


def test_receive_traces_one_file_per_node(tmp_path: Path) -> None:
    traces = tmp_path / "traces"
    traces.mkdir()
    semitcp_run(traces, trace__nodes=[2, 5], trace__receptions=True, trace__stop_s=5.0)
    assert sorted(p.name for p in traces.iterdir()) == ["trace.pcap", "trace.rx2.pcap", "trace.rx5.pcap"]
    _, everything = semitcp_run(tmp_path, "all.pcap", trace__stop_s=5.0)
    sent = {r.mpdu[:-4] if r.whole else r.mpdu for r in records(everything)}
    for node in (2, 5):
        received = records(traces / f"trace.rx{node}.pcap")
        assert received
        times = [r.time for r in received]
        assert times == sorted(times)
        decoded = [r for r in received if not r.radiotap.flags.val & 0x40]
        lost = [r for r in received if r.radiotap.flags.val & 0x40]
        assert decoded and lost, "frames decoded, and frames sensed but lost (bad FCS)"
        # Every reception is of a frame some node sent.
        for r in received:
            assert (r.mpdu[:-4] if r.whole else r.mpdu) in sent
        for r in decoded:
            if r.whole:
                assert zlib.crc32(r.mpdu[:-4]).to_bytes(4, "little") == r.mpdu[-4:]
        # A node hears its chain neighbours' DATA.
        assert {r.transmitter for r in decoded if r.kind == "data"} >= {node - 1, node + 1}


def test_sack_option_rides_in_acks(tmp_path: Path) -> None:
    scenario = hoplab.load_scenario(EXAMPLES / "tcp-chain-7hop.toml").set("duration_s", 20.0).set("warmup_s", 1.0)
    scenario.set("tcp.sack", True)
    path = tmp_path / "sack.pcap"
    hoplab.run(scenario, pcap=path)
    blocks = 0
    for _, _, tcp in tcp_flows(records(path)):
        for kind, value in dpkt.tcp.parse_opts(tcp.opts):
            if kind == dpkt.tcp.TCP_OPT_SACK:
                assert tcp.flags == dpkt.tcp.TH_ACK and len(value) % 8 == 0
                edges = [int.from_bytes(value[i:i + 4], "big") for i in range(0, len(value), 4)]
                assert all((e - 1) % SEGMENT_BYTES == 0 for e in edges)
                assert all(left > tcp.ack for left in edges[::2])
                blocks += 1
    assert blocks > 0


def test_bad_paths_and_failed_runs_leave_nothing(tmp_path: Path, small_chain: Path) -> None:
    with pytest.raises(hoplab.OutputPathError, match="does not exist") as caught:
        hoplab.run(small_chain, pcap=tmp_path / "missing" / "t.pcap")
    assert caught.value.key == "pcap"
    with pytest.raises(hoplab.OutputPathError, match="is a directory"):
        hoplab.run(small_chain, pcap=tmp_path)
    assert not (tmp_path / "missing").exists()
    out = tmp_path / "out"
    out.mkdir()
    scenario = hoplab.load_scenario(small_chain)
    with pytest.raises(hoplab.ScenarioError) as bad_key:
        hoplab.run(scenario.copy().set("trace.nodes", [0, 9]), pcap=out / "t.pcap")
    assert bad_key.value.key == "trace.nodes[1]"
    with pytest.raises(hoplab.ScenarioError) as bad_window:
        hoplab.run(scenario.copy().set("trace.stop_s", 0.0), pcap=out / "t.pcap")
    assert bad_window.value.key == "trace.stop_s"
    with pytest.raises(hoplab.SimulationError, match="wall-clock limit"):
        hoplab.run(scenario.copy().set("duration_s", 1200.0).set("trace.receptions", True), pcap=out / "t.pcap",
                   wall_limit_s=0.05)
    assert list(out.iterdir()) == [], "a failed run leaves no trace and no temporary file"
    # The core refuses too (for callers of _core), as an OSError naming the file.
    with pytest.raises(OSError) as os_error:
        hoplab._core.simulate(scenario.to_json(), pcap=str(tmp_path / "missing" / "t.pcap"))
    assert os_error.value.filename == str(tmp_path / "missing" / "t.pcap")
    assert list(out.iterdir()) == [] and not (tmp_path / "missing").exists()


def test_cli_writes_a_trace(small_chain: Path, workdir: Path) -> None:
    done = run_cli("run", str(small_chain), "--pcap", "t.pcap", "--json", cwd=workdir)
    assert done.returncode == 0, done.stderr
    recs = records(workdir / "t.pcap")
    udp = [r.ip().data for r in recs if r.kind == "data"]
    assert udp and all(isinstance(u, dpkt.udp.UDP) and (u.sport, u.dport) == (49152, 9) for u in udp)
    done = run_cli("run", str(small_chain), "--pcap", "nowhere/t.pcap", cwd=workdir)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("error: --pcap: 'nowhere/t.pcap': its directory 'nowhere' does not exist")
    assert sorted(p.name for p in workdir.iterdir()) == ["t.pcap"]


TSHARK = shutil.which("tshark")


@pytest.mark.skipif(TSHARK is None, reason="tshark is not installed")
def test_tshark_finds_no_malformed_packet(tmp_path: Path) -> None:
    assert TSHARK is not None
    result, path = semitcp_run(tmp_path, trace__receptions=True, trace__nodes=[0, 1, 7], trace__stop_s=6.0)
    _, whole = semitcp_run(tmp_path, "whole.pcap", trace__payload=True, trace__stop_s=6.0)

    def tshark(file: Path, display_filter: str, check: bool = False) -> list[str]:
        """Frame numbers tshark shows with `display_filter`; `check`: it also
        verifies every checksum and FCS."""
        checks = ["wlan.check_checksum", "ip.check_checksum", "tcp.check_checksum", "udp.check_checksum"]
        options = [arg for pref in checks for arg in ("-o", f"{pref}:TRUE")] if check else []
        done = subprocess.run([TSHARK, "-n", "-r", str(file), *options, "-Y", display_filter, "-T", "fields",
                               "-e", "frame.number"], capture_output=True, text=True, timeout=120, check=True)
        return done.stdout.split()

    files = [path, whole, tmp_path / "trace.rx0.pcap", tmp_path / "trace.rx1.pcap", tmp_path / "trace.rx7.pcap"]
    for file in files:
        assert tshark(file, "frame") == [str(i + 1) for i in range(len(records(file)))], file
        assert tshark(file, "_ws.malformed || _ws.expert.severity >= error") == [], file
        # With checksums and FCS verified, the only complaints are about the
        # frames a receive trace holds as received in error (bad FCS).
        good = "radiotap.flags.badfcs == 0"
        assert tshark(file, f"(_ws.malformed || _ws.expert.severity >= error) && {good}", check=True) == [], file
        bad = "ip.checksum.status == 0 || tcp.checksum.status == 0 || udp.checksum.status == 0 || wlan.fcs.status == 0"
        assert tshark(file, f"({bad}) && {good}", check=True) == [], file
        if not file.name.startswith("trace.rx"):
            assert tshark(file, f"!({good})") == [], file
    assert len(tshark(path, "aodv")) == len(tshark(path, "udp.port == 654")) > 0
    assert len(tshark(path, "aodv.type == 1")) > 0
    report = result.to_dict()
    window = records(path)
    assert len(tshark(path, "wlan.fc.order == 1")) == sum(r.order for r in window) > 0
    assert len(tshark(path, "wlan.fc.type_subtype == 0x001b")) == sum(r.kind == "rts" for r in window)
    assert report["nodes"]
