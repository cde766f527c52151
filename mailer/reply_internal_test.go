package mailer

import (
	"fmt"
	"net/textproto"
	"strings"
	"testing"
)

func TestAuthorReplyHidesOurNames(t *testing.T) {
	ours := ourNames("relay.internal", 587, "app-7.internal")
	for _, tc := range []struct {
		err  error
		want string
	}{
		{&textproto.Error{Code: 550, Msg: "5.1.1 No such user"}, "550 5.1.1 No such user"},
		{fmt.Errorf("mailer: send via relay.internal:587: RCPT TO: %w",
			&textproto.Error{Code: 451, Msg: "4.3.0 relay.internal busy\n4.3.0 try later"}), "451 4.3.0 [hidden] busy 4.3.0 try later"},
		{&textproto.Error{Code: 554, Msg: "5.7.1 Client host [10.0.0.3] blocked by RELAY.INTERNAL."}, "554 5.7.1 Client host [hidden] blocked by [hidden]."},
		{&textproto.Error{Code: 550, Msg: "5.7.1 from app-7.internal:587 or [2001:db8::1]"}, "550 5.7.1 from [hidden] or [hidden]"},
		// Words that contain a name are not the name.
		{&textproto.Error{Code: 550, Msg: "relay.internals relay.internal-2 myrelay.internal"}, "550 relay.internals relay.internal-2 myrelay.internal"},
		{&textproto.Error{Code: 550, Msg: strings.Repeat("x", 400)}, "550 " + strings.Repeat("x", maxReply-5) + "…"},
		{fmt.Errorf("dial tcp 10.0.0.5:587: connection refused"), ""},
	} {
		if got := authorReply(tc.err, ours); got != tc.want {
			t.Errorf("authorReply(%v)\n got %q\nwant %q", tc.err, got, tc.want)
		}
	}
}
