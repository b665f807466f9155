package web

import (
	"net"
	"net/netip"
	"net/url"
	"strings"
)

// These mirror the rules of the MCP HTTP transport (internal/mcpserver's
// guard and the go-sdk's DNS-rebinding check), so both servers accept and
// refuse the same requests.

// isLoopback reports whether a host or host:port names the loopback
// interface ("localhost", 127.0.0.0/8, ::1).
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// IsLoopbackHost reports whether --host binds only the loopback interface.
func IsLoopbackHost(host string) bool { return isLoopback(host) }

// originAllowed accepts loopback origins (as the MCP transport does) and the
// server's own origin (the UI calling its API when served off loopback,
// where the token is required anyway).
func originAllowed(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if isLoopback(u.Hostname()) {
		return true
	}
	return strings.EqualFold(u.Host, host)
}
