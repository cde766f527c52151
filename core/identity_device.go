package core

import (
	"net/netip"
	"strings"
)

// Where a session was signed in: the device its user agent names and the
// network of its address, as "where you are signed in" shows them.

// Device is what a user agent says about the browser and the system it
// runs on, without versions: "Firefox" on "Linux". Either is "" when the
// user agent does not say.
type Device struct {
	Browser string
	OS      string
}

// String is the device as a person reads it: "Firefox on Linux",
// "Firefox", "Linux", or "Unknown device".
func (d Device) String() string {
	switch {
	case d.Browser != "" && d.OS != "":
		return d.Browser + " on " + d.OS
	case d.Browser != "":
		return d.Browser
	case d.OS != "":
		return d.OS
	}
	return "Unknown device"
}

// browsers are tried in order: a user agent names the browsers it is
// compatible with too (Edge says Chrome and Safari; Chrome says Safari),
// so the most specific token comes first.
var browsers = []struct{ token, name string }{
	{"sendlater/", "Sendlater CLI"},
	{"Edg/", "Edge"}, {"EdgA/", "Edge"}, {"EdgiOS/", "Edge"},
	{"OPR/", "Opera"}, {"Opera", "Opera"},
	{"SamsungBrowser/", "Samsung Internet"},
	{"Vivaldi/", "Vivaldi"},
	{"YaBrowser/", "Yandex Browser"},
	{"Firefox/", "Firefox"}, {"FxiOS/", "Firefox"},
	{"CriOS/", "Chrome"}, {"HeadlessChrome/", "Chrome"}, {"Chromium/", "Chromium"}, {"Chrome/", "Chrome"},
	{"Version/", "Safari"}, // Safari names its version so; other WebKit browsers do not
	{"curl/", "curl"},
	{"Go-http-client/", "Go program"},
	{"python-requests/", "Python program"},
}

// systems likewise: iOS user agents say "like Mac OS X", Android ones say
// "Linux".
var systems = []struct{ token, name string }{
	{"iPhone", "iOS"}, {"iPad", "iPadOS"}, {"iPod", "iOS"},
	{"Android", "Android"},
	{"CrOS", "ChromeOS"},
	{"Windows", "Windows"},
	{"Mac OS X", "macOS"}, {"Macintosh", "macOS"},
	{"Ubuntu", "Ubuntu"}, {"Fedora", "Fedora"},
	{"Linux", "Linux"}, {"FreeBSD", "FreeBSD"}, {"OpenBSD", "OpenBSD"},
}

// ParseDevice reads the browser and the system out of a user agent. It is
// a small table, not a database: what it does not know it leaves blank.
func ParseDevice(userAgent string) Device {
	var d Device
	for _, b := range browsers {
		if strings.Contains(userAgent, b.token) {
			d.Browser = b.name
			break
		}
	}
	for _, s := range systems {
		if strings.Contains(userAgent, s.token) {
			d.OS = s.name
			break
		}
	}
	return d
}

// Network bits kept of a client's address: an IPv4 address's /24, an IPv6
// address's /48 (a site). Never the whole address: the list of sessions
// shows where, not who.
const (
	networkBitsIPv4 = 24
	networkBitsIPv6 = 48
)

// SignInNetwork is the network of a client address as the sessions list
// shows it, a prefix ("203.0.113.0/24", "2001:db8:1::/48"); "" for an
// address it cannot read. (ClientNetwork is what the limits count.)
func SignInNetwork(address string) string {
	a, err := netip.ParseAddr(address)
	if err != nil {
		if ap, perr := netip.ParseAddrPort(address); perr == nil {
			a = ap.Addr()
		} else {
			return ""
		}
	}
	a = a.Unmap().WithZone("")
	bits := networkBitsIPv6
	if a.Is4() {
		bits = networkBitsIPv4
	}
	p, err := a.Prefix(bits)
	if err != nil {
		return ""
	}
	return p.String()
}
