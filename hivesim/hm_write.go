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

// filterRows is the rows accepted by keep, in order.
func filterRows[T any](rows []T, keep func(T) bool) []T {
	var out []T
	for _, r := range rows {
		if keep(r) {
			out = append(out, r)
		}
	}
	return out
}

// find is the first row accepted by keep, or nil.
func find[T any](rows []*T, keep func(*T) bool) *T {
	for _, x := range rows {
		if keep(x) {
			return x
		}
	}
	return nil
}

// firstN is at most the first n rows.
func firstN[T any](rows []T, n int) []T { return rows[:min(n, len(rows))] }

// strOrNull is s, or null when empty.
func strOrNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}
