package main_test

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// A script (testdata/*.txt) drives the built binary line by line, in the
// manner of testscript:
//
//	sendlater ARGS...          run it; it must exit 0
//	exit N sendlater ARGS...   run it; it must exit N
//	stdin TEXT                 the next command's standard input (one line)
//	stdout REGEXP, stderr REGEXP      the last command's output matches
//	! stdout REGEXP, ! stderr REGEXP  it does not
//
// $NAME is replaced by vars[NAME] everywhere; '...' quotes an argument.
func runScript(t *testing.T, name, dir string, env []string, vars map[string]string) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var last result
	var stdin string
	var cmdline string
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		for k, v := range vars {
			line = strings.ReplaceAll(line, "$"+k, v)
		}
		where := name + ":" + strconv.Itoa(n) + ": " + line
		words := splitWords(line)
		neg := words[0] == "!"
		if neg {
			words = words[1:]
		}
		switch words[0] {
		case "stdin":
			stdin = strings.Join(words[1:], " ") + "\n"
		case "stdout", "stderr":
			out := last.stdout
			if words[0] == "stderr" {
				out = last.stderr
			}
			re := regexp.MustCompile("(?m)" + strings.Join(words[1:], " "))
			if re.MatchString(out) == neg {
				t.Fatalf("%s\nafter %s (exit %d):\nstdout:\n%s\nstderr:\n%s", where, cmdline, last.code, last.stdout, last.stderr)
			}
		case "exit", "sendlater":
			want := 0
			if words[0] == "exit" {
				want, _ = strconv.Atoi(words[1])
				words = words[2:]
			}
			cmdline = strings.Join(words, " ")
			last = runWithStdin(t, dir, env, stdin, words[1:]...)
			stdin = ""
			if last.code != want {
				t.Fatalf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", where, last.code, want, last.stdout, last.stderr)
			}
		default:
			t.Fatalf("%s: unknown command %q", where, words[0])
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// splitWords splits a script line at spaces, keeping '...' together.
func splitWords(line string) []string {
	var words []string
	for line != "" {
		line = strings.TrimLeft(line, " ")
		if strings.HasPrefix(line, "'") {
			end := strings.Index(line[1:], "'")
			if end < 0 {
				end = len(line) - 1
			}
			words = append(words, line[1:end+1])
			line = line[min(end+2, len(line)):]
			continue
		}
		w, rest, _ := strings.Cut(line, " ")
		if w != "" {
			words = append(words, w)
		}
		line = rest
	}
	return words
}
