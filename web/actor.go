package web

import (
	"context"
	"net"
	"os/user"
	"strconv"

	"github.com/sendlater/sendlater/core"
)

// OSUserName names the OS user of uid as the audit log shows it: "alice
// (uid 1000)".
func OSUserName(uid uint32) string {
	id := strconv.FormatUint(uint64(uid), 10)
	if u, err := user.LookupId(id); err == nil && u.Username != "" {
		return u.Username + " (uid " + id + ")"
	}
	return "uid " + id
}

// peerActor puts in the connection's context the OS user of the process at
// the other end of the admin socket: the operator, for the audit log.
func peerActor(ctx context.Context, c net.Conn) context.Context {
	if uid, ok := peerUID(c); ok {
		return core.WithOperator(ctx, OSUserName(uid))
	}
	return core.WithOperator(ctx, "unknown (the peer's user cannot be read on this system)")
}
