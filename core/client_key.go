package core

import "net/netip"

// Clients by network. A limit keyed on a client (failed sign-ins, contact
// form, postpone codes, page views) counts an IPv4 client by its address
// but an IPv6 client by its network: one subscriber is commonly given a
// whole /64, 2^64 addresses to take a fresh one from for every request, so
// counting its addresses one by one would count none of its requests twice.
// Clients behind one NAT share an IPv4 address in the same way.

// The network of an IPv6 client (config limits.ipv6_prefix): its first
// DefaultIPv6Prefix bits by default, from MinIPv6Prefix (a whole site) to
// MaxIPv6Prefix (each address on its own).
const (
	DefaultIPv6Prefix = 64
	MinIPv6Prefix     = 32
	MaxIPv6Prefix     = 128
)

// ClientNetwork is who a limit counts for the client address: an IPv4
// address itself, an IPv4-mapped IPv6 address (::ffff:a.b.c.d) as its
// IPv4 address, and an IPv6 address as its network of prefix bits (e.g.
// "2001:db8:1:2::/64"; outside MinIPv6Prefix..MaxIPv6Prefix:
// DefaultIPv6Prefix), without a zone. Anything else (empty, unknown) is
// returned as it is.
func ClientNetwork(address string, prefix int) string {
	a, err := netip.ParseAddr(address)
	if err != nil {
		return address
	}
	a = a.WithZone("").Unmap()
	if a.Is4() {
		return a.String()
	}
	if prefix < MinIPv6Prefix || prefix > MaxIPv6Prefix {
		prefix = DefaultIPv6Prefix
	}
	return netip.PrefixFrom(a, prefix).Masked().String()
}

// Client is the key under which the limits count the client at address
// (ClientNetwork with lr.IPv6Prefix). Every limit keyed on a client keys
// it with Client, never with the address as it came.
func (lr *Limiter) Client(address string) string {
	return ClientNetwork(address, lr.IPv6Prefix)
}
