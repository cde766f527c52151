package web

// withUmask runs fn: Windows has no umask (the socket's directory, made
// private, guards it).
func withUmask(_ int, fn func() error) error { return fn() }
