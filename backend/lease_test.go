package backend

import "testing"

// TestLeaseReleasedOnce: releasing a Lease twice puts its buffer back into
// the pool once; twice would hand one buffer to two answers.
func TestLeaseReleasedOnce(t *testing.T) {
	p, err := New(map[string]string{"n": "http://127.0.0.1:1"}, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	l := p.getRespBuf(10)
	l.lent = true
	l.Release()
	l.Release()
	if a, b := p.getRespBuf(10), p.getRespBuf(10); a == b {
		t.Fatal("the pool handed out one buffer twice")
	}
}
