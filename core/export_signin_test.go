package core

// DummyPasswordHashForTest is the hash an unknown email is checked against.
func DummyPasswordHashForTest(a *Auth) string {
	a.init()
	return a.dummyPasswordHash()
}
