package hivesim

// A twin is a method that rc_api or market_history_api serves and
// condenser_api serves again under the same name. The first reads named
// members, writes NAI assets and wraps its result in {"<key>": ...}; the
// condenser form reads the same arguments by position and writes legacy
// assets, unwrapped.
type twin struct {
	api      string   // "rc_api" or "market_history_api"
	name     string   // the method name in both APIs
	obj      []string // the arguments, in condenser's order
	optional int      // how many trailing arguments may be left out
	key      string   // the first form's result member ("": not wrapped)
	serve    func(c *callCtx, args []any, w *jw, legacy bool) *rpcError
}

// twins registers both forms of each twin.
func (r registry) twins(ts ...twin) {
	for _, t := range ts {
		lo, hi := len(t.obj)-t.optional, len(t.obj)
		r.hived(t.api+"."+t.name, func(c *callCtx, p any, w *jw) *rpcError {
			o, err := c.asObject(p)
			if err != nil {
				return err
			}
			var args []any
			for i, m := range t.obj {
				if v, ok := o[m]; ok || i < lo {
					args = append(args, v)
				}
			}
			if t.key == "" {
				return t.serve(c, args, w, false)
			}
			w.objBegin()
			w.key(t.key)
			err = t.serve(c, args, w, false)
			w.objEnd()
			return err
		})
		r.hived("condenser_api."+t.name, func(c *callCtx, p any, w *jw) *rpcError {
			args, err := c.condN(p, hi)
			if lo < hi {
				args, err = c.condRange(p, lo, hi)
			}
			if err != nil {
				return err
			}
			return t.serve(c, args, w, true)
		})
	}
}

// writeRows writes rows as a JSON array.
func writeRows[T any](w *jw, rows []*T, write func(*jw, *T)) {
	w.arrBegin()
	for _, r := range rows {
		write(w, r)
	}
	w.arrEnd()
}
