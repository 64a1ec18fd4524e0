package hivesim

// listOf writes rows as an array, each by f.
func listOf[T any](w *jw, rows []T, f func(T) any) {
	w.arrBegin()
	for _, r := range rows {
		w.val(f(r))
	}
	w.arrEnd()
}

// mapRows converts rows by f.
func mapRows[T, U any](rows []T, f func(T) U) []U {
	out := make([]U, len(rows))
	for i, r := range rows {
		out[i] = f(r)
	}
	return out
}

// strOrNull is s, or null when empty.
func strOrNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}
