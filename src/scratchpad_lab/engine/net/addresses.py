"""Which addresses a hosted lab may connect to, and how it holds to the one it checked.

Streamlit-free; used by providers.py in hosted mode (SCRATCHPAD_LAB_HOSTED=1); transport.py holds
the connection to the checked address. A base URL's host is
resolved once; every address DNS gives must be public (not loopback, private, link-local, shared,
reserved, documentation, multicast or a cloud metadata address, nor an IPv6 form that carries such an
IPv4 address); the connection then goes to exactly that address (DNS pinning), so a name that resolves
elsewhere a moment later (DNS rebinding) reaches nothing new.
"""
from __future__ import annotations

import ipaddress
import socket

# Addresses no hosted lab may call whatever the ipaddress module says about them (cloud metadata).
METADATA_ADDRESSES = frozenset(ipaddress.ip_address(a) for a in (
    "169.254.169.254", "169.254.170.2", "100.100.100.200", "192.0.0.192", "fd00:ec2::254"))
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))


def forbidden_address(address) -> bool:
    """True for every address a hosted lab must not connect to: anything not globally routable
    (loopback, private, link-local, shared 100.64/10, reserved, documentation, unspecified), multicast,
    the cloud metadata addresses, and IPv6 forms that carry such an IPv4 address (mapped, 6to4,
    Teredo, NAT64)."""
    address = ipaddress.ip_address(address)
    if address in METADATA_ADDRESSES:
        return True
    if isinstance(address, ipaddress.IPv6Address):
        embedded = [address.ipv4_mapped, address.sixtofour, *(address.teredo or ())]
        embedded += [ipaddress.IPv4Address(int(address) & 0xFFFFFFFF) for net in _NAT64 if address in net]
        embedded = [inner for inner in embedded if inner is not None]
        if embedded:  # judge the IPv4 address it carries, not the wrapper
            return any(forbidden_address(inner) for inner in embedded)
        if address.is_site_local:
            return True
    return (not address.is_global or address.is_multicast or address.is_private or address.is_loopback
            or address.is_link_local or address.is_reserved or address.is_unspecified)


def ascii_host(hostname: str) -> str:
    """The host name as the HTTP client sends and connects to it: lower case, an internationalised name
    (`bücher.example`) in its punycode form (`xn--bcher-kva.example`), by IDNA 2008 as httpx encodes it.
    ValueError with the sentence to show for a name IDNA refuses."""
    name = hostname.lower()
    if name.isascii():
        return name
    try:
        import idna  # httpx's own dependency
        return idna.encode(name, uts46=True).decode("ascii")
    except (ImportError, UnicodeError, ValueError):
        raise ValueError(f"The host {hostname!r} is not a valid internationalised name; check the base URL.") from None


def public_address(hostname: str, port: int) -> str:
    """The address to connect to for `hostname` (looked up as `ascii_host` gives it, the name the client
    connects to), resolved once, if every address it resolves to is public; ValueError with the sentence
    to show otherwise."""
    hostname = ascii_host(hostname)
    try:
        infos = socket.getaddrinfo(hostname, port, proto=socket.IPPROTO_TCP)
    except (socket.gaierror, UnicodeError):
        raise ValueError(f"The host {hostname!r} cannot be resolved; check the base URL.") from None
    addresses = [ipaddress.ip_address(info[4][0].split("%")[0]) for info in infos]
    for address in addresses:
        if forbidden_address(address):
            raise ValueError(f"In hosted mode the base URL may not point at {address} (a local, private, "
                             "reserved or metadata address). Use a public endpoint.")
    if not addresses:
        raise ValueError(f"The host {hostname!r} cannot be resolved; check the base URL.")
    return str(addresses[0])
