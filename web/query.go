package web

import (
	"net/url"
	"os"
	"strings"
)

// queryValue is url.ParseQuery(raw).Get(key) without the map ParseQuery
// makes on every call: the list reads two keys of a query that is most
// often empty or plain (issue 35). A query with anything to unescape ('%'
// or '+') or more than queryByHandMax parameters is parsed by net/url
// itself, and so is every query when GODEBUG may set net/url's own limit on
// the number of parameters (urlmaxqueryparams), which this does not copy.
// What it returns is ParseQuery's (TestQueryValueIsParseQuerys).
func queryValue(raw, key string) string {
	if raw == "" {
		return ""
	}
	if queryLimitSet || strings.ContainsAny(raw, "%+") || strings.Count(raw, "&") >= queryByHandMax {
		v, _ := url.ParseQuery(raw)
		return v.Get(key)
	}
	for raw != "" {
		var kv string
		kv, raw, _ = strings.Cut(raw, "&")
		if kv == "" || strings.Contains(kv, ";") { // ParseQuery skips both
			continue
		}
		if k, v, _ := strings.Cut(kv, "="); k == key {
			return v // without '%' or '+', QueryUnescape returns its input
		}
	}
	return ""
}

// queryByHandMax bounds the parameters queryValue parses by hand, well
// below net/url's default limit (10,000).
const queryByHandMax = 16

// queryLimitSet tells whether GODEBUG may name urlmaxqueryparams.
var queryLimitSet = strings.Contains(os.Getenv("GODEBUG"), "urlmaxqueryparams")
