package main

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/spf13/viper"
)

// envPrefix starts every environment variable that sets a key.
const envPrefix = "SENDLATER_"

// notSettings are the SENDLATER_ variables that the project reads and that
// set no key: the tests' switches and the build's, and cobra's completion
// variables (<PROGRAM>_ACTIVE_HELP, <PROGRAM>_COMPLETION_DESCRIPTIONS, set by
// the completion scripts). A typo check that refused them would stop `make
// test`, CI and shell completion. A new variable read with os.Getenv("SENDLATER_...")
// belongs here (a test greps the repository for them).
var notSettings = []string{
	"SENDLATER_TEST_POSTGRES_URL", // pgtest: the PostgreSQL server of the tests
	"SENDLATER_TEST_CRASH_STORE",  // store/bolt's crash test: its child's store
	"SENDLATER_TEST_CRASH_BLOBS",  // the blob crash tests (store/bolt, store/postgres): their child's store
	"SENDLATER_REQUIRE_*",         // tests fail instead of skipping: POSTGRES, STRIPE, BROWSER, TERMINAL, RELEASE
	"SENDLATER_SKIP_LOG",          // pgtest: where skipped tests are noted for make test
	"SENDLATER_STRIPE_MOCK",       // billing/stripemock: the stripe-mock binary
	"SENDLATER_UI_BUILT",          // goreleaser: the web app is built already
	"SENDLATER_WRITE_TRANSCRIPTS", // the terminal tests rewrite docs/cli/login-*.txt
	"SENDLATER_EXPORT_MEM",        // web: the zip export memory test logs its figures
	"SENDLATER_BENCH_DSN_SENDER",  // inbound's benchmarks: the DSN sender process's spec
	"SENDLATER_BENCH_SENDER_NICE", // inbound's benchmarks: 0 runs the DSN sender at the server's priority
	"SENDLATER_ACTIVE_HELP",       // cobra's completion
	"SENDLATER_COMPLETION_DESCRIPTIONS",
}

// isNotSetting tells whether name is one of notSettings.
func isNotSetting(name string) bool {
	for _, n := range notSettings {
		if p, ok := strings.CutSuffix(n, "*"); ok && strings.HasPrefix(name, p) || n == name {
			return true
		}
	}
	return false
}

// knownKeys are the configuration's keys: every key with a default and
// every field of Config (by its mapstructure name). Under a key whose value
// is a map keyed by the operator's own names, any sub-key is accepted
// (mapKeys; none today).
type knownKeys struct {
	leaves  []string // sorted
	mapKeys []string
}

func newKnownKeys() knownKeys {
	set := map[string]bool{}
	for _, m := range []map[string]any{defaults, mailDefaults(), integrationDefaults(), publicDefaults(), siteDefaults()} {
		for k := range m {
			set[k] = true
		}
	}
	var k knownKeys
	var walk func(prefix string, t reflect.Type)
	walk = func(prefix string, t reflect.Type) {
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			key := prefix + f.Tag.Get("mapstructure")
			switch f.Type.Kind() {
			case reflect.Struct:
				if f.Type.String() != "time.Time" {
					walk(key+".", f.Type)
					continue
				}
			case reflect.Map:
				k.mapKeys = append(k.mapKeys, key)
			}
			set[key] = true
		}
	}
	walk("", reflect.TypeOf(Config{}))
	for key := range set {
		k.leaves = append(k.leaves, key)
	}
	slices.Sort(k.leaves)
	return k
}

// known tells whether key, as viper flattens a config file, is a key, a
// section holding keys (written empty: "mail:"), or a name under a map key.
func (k knownKeys) known(key string) bool {
	for _, l := range k.leaves {
		if l == key || strings.HasPrefix(l, key+".") {
			return true
		}
	}
	for _, m := range k.mapKeys {
		if strings.HasPrefix(key, m+".") {
			return true
		}
	}
	return false
}

// envName is the variable that sets key.
func envName(key string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// fileKeyErrors is an error for each key of the config file that is no
// key, in order (a typo would otherwise leave the default in place without
// a word); err when the file cannot be read.
func (k knownKeys) fileKeyErrors(file string) (errs []error, err error) {
	fv := viper.New()
	fv.SetConfigFile(file)
	if err := fv.ReadInConfig(); err != nil {
		return nil, fmt.Errorf("config file %s: %w", file, err)
	}
	keys := fv.AllKeys()
	slices.Sort(keys)
	for _, key := range keys {
		if k.known(key) {
			continue
		}
		if near := nearest(key, k.leaves, suffixMatch(key, k.leaves)); near != "" {
			errs = append(errs, fmt.Errorf("config: unknown key %q in %s (did you mean %q?)", key, file, near))
		} else {
			errs = append(errs, fmt.Errorf("config: unknown key %q in %s (config.example.yaml lists every key)", key, file))
		}
	}
	return errs, nil
}

// envErrors is an error for each SENDLATER_ variable of environ that sets
// no key and is none of notSettings, by name.
func (k knownKeys) envErrors(environ []string) []error {
	names := map[string]bool{}
	var candidates []string
	for _, key := range k.leaves {
		names[envName(key)] = true
		candidates = append(candidates, envName(key))
	}
	var unknown []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, envPrefix) && !names[name] && !isNotSetting(name) {
			unknown = append(unknown, name)
		}
	}
	slices.Sort(unknown)
	var errs []error
	for _, name := range unknown {
		if near := nearest(name, candidates, suffixMatch(name, candidates)); near != "" {
			errs = append(errs, fmt.Errorf("config: %s names no setting (did you mean %s?)", name, near))
		} else {
			errs = append(errs, fmt.Errorf("config: %s names no setting (config.example.yaml lists every key; nested keys join with _, e.g. SENDLATER_MAIL_SMTP_HOST)", name))
		}
	}
	return errs
}

// suffixMatch is the one known key that ends in the typed one, a section
// left out ("smtp.host" for mail.smtp.host), else "".
func suffixMatch(typed string, known []string) string {
	sep := "."
	if strings.HasPrefix(typed, envPrefix) {
		typed, sep = strings.TrimPrefix(typed, envPrefix), "_"
	}
	found := ""
	for _, k := range known {
		if strings.HasSuffix(k, sep+typed) {
			if found != "" {
				return ""
			}
			found = k
		}
	}
	return found
}

// nearest is prefer when set, else the known name closest to typed by
// edit distance when it is close enough to be what was meant, else "".
func nearest(typed string, known []string, prefer string) string {
	if prefer != "" {
		return prefer
	}
	best, bestD := "", -1
	for _, k := range known {
		if d := editDistance(typed, k); bestD < 0 || d < bestD {
			best, bestD = k, d
		}
	}
	// The name without the prefix all share: "ADRESS" is 4 edits from
	// "ADDR", about half its length; more is a different word.
	n := len(strings.TrimPrefix(typed, envPrefix))
	if bestD < 0 || bestD > max(2, (n+1)/2+1) {
		return ""
	}
	return best
}

// editDistance is the optimal string alignment distance of a and b:
// insertions, deletions, substitutions and swaps of neighbours ("hots" for
// "host") count one each.
func editDistance(a, b string) int {
	// Three rows of the table: two back, one back, this one.
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
