"""The Ray cluster the lab starts (engine/cells/ray_cluster.py `connected`, no address) listens on loopback only
(issue 46: 7 of its 9 ports were on every interface, `::`, reachable at the machine's own address). Run in a child
process, so the cluster is the lab's own and not a test module's `ray.init`; it ends with the study (`ray.shutdown`,
never `ray stop`)."""
from __future__ import annotations

import ipaddress
import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT

pytest.importorskip("ray", reason="needs Ray: pip install -r requirements-ray.txt")

CHILD = r'''
import json, os, socket
from pathlib import Path
from scratchpad_lab.engine.cells.executor import ExecutorChoice
from scratchpad_lab.engine.cells.ray_cluster import connected

def listening():
    out = {}
    for table, family in (("/proc/net/tcp", socket.AF_INET), ("/proc/net/tcp6", socket.AF_INET6)):
        for line in Path(table).read_text().splitlines()[1:]:
            f = line.split()
            if f[3] == "0A":
                address, port = f[1].split(":")
                raw = bytes.fromhex(address)
                raw = raw[::-1] if family == socket.AF_INET else b"".join(raw[i:i + 4][::-1] for i in range(0, 16, 4))
                out[f[9]] = (socket.inet_ntop(family, raw), int(port, 16))
    return out

def descendants():
    children = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            parent = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(pid))
    found, todo = {os.getpid()}, [os.getpid()]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found

with connected(ExecutorChoice("ray")):
    import ray
    ray.get(ray.remote(lambda: os.getpid()).remote())  # a worker up, with its own port
    table, seen = listening(), []
    for pid in descendants():
        try:
            links = [os.readlink(f"/proc/{pid}/fd/{fd}") for fd in os.listdir(f"/proc/{pid}/fd")]
            title = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
        except OSError:
            continue
        seen += [[title.rsplit("/", 1)[-1], *table[link[8:-1]]] for link in links
                 if link.startswith("socket:[") and link[8:-1] in table]
print(json.dumps(seen))
'''


def loopback(address: str) -> bool:
    ip = ipaddress.ip_address(address)
    mapped = getattr(ip, "ipv4_mapped", None)  # ::ffff:127.0.0.1: an IPv6 socket bound to IPv4 loopback
    return ip.is_loopback or bool(mapped and mapped.is_loopback)


def test_every_port_of_the_cluster_the_lab_starts_is_on_loopback():
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=240,
                          env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    assert done.returncode == 0, done.stderr[-3000:]
    ports = json.loads(done.stdout.strip().splitlines()[-1])
    titles = {title for title, _, _ in ports}
    assert {"gcs_server", "raylet"} <= titles and len(ports) >= 4, ports  # the control store, the raylet, workers
    assert [p for p in ports if not loopback(p[1])] == []
