package backend

// Seed advances the last irreversible block to lib, as a
// get_dynamic_global_properties answer saying so would, and reports whether
// it moved. It is for a value learnt elsewhere, such as the LIB other
// hivegate replicas share through Redis, so that a tracker that has not
// polled yet need not treat every block as reversible. Like Observe it
// never moves the LIB back, and it calls the OnUpdate hooks when it moved.
func (t *LIBTracker) Seed(lib uint64) bool {
	if !atomicMax(&t.lib, lib) {
		return false
	}
	t.mu.Lock()
	hooks := t.hooks
	t.mu.Unlock()
	lib, head := t.lib.Load(), t.head.Load()
	for _, fn := range hooks {
		fn(lib, head)
	}
	return true
}
