package backend

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Kind is what a node serves, as the prober found out. The prober asks
// each node, in this order, until one answers in kind:
//
//   - database_api.get_dynamic_global_properties: a result with a head
//     block number makes a hived node, judged by its head block, its time
//     and its last irreversible block (agree.go);
//   - hive.db_head_state: a result with db_head_block makes a hivemind
//     node, judged by the age of the last block it imported;
//   - hive_api.get_version: a result whose app_name names HAfAH makes a
//     HAfAH node, judged by whether it serves the block the chain had
//     MaxSyncAge ago (block_api.get_block_header);
//   - jsonrpc.get_methods: any JSON-RPC answer makes a node of another
//     kind, in service while it answers.
//
// A node keeps its kind from one probe to the next; when its own probe no
// longer answers in kind, the node is out of service until a later probe
// finds its kind again.
type Kind string

// The kinds of node (see Kind).
const (
	KindUnknown  Kind = ""
	KindHived    Kind = "hived"
	KindHivemind Kind = "hivemind"
	KindHAfAH    Kind = "hafah"
	KindJSONRPC  Kind = "jsonrpc"
)

// detectOrder is the order in which the prober tries the kinds.
var detectOrder = [...]Kind{KindHived, KindHivemind, KindHAfAH, KindJSONRPC}

// blockInterval is Hive's block interval: one block every 3 seconds.
const blockInterval = 3 * time.Second

// maxClockSkew is how far in the future (by the gateway's clock) a block
// time may lie: clocks of honest nodes and of the gateway differ by less.
const maxClockSkew = 5 * time.Second

// headView is what one probe of a node told: its head block, last
// irreversible block and head block time (hived), or the last block it
// imported and its time (hivemind).
type headView struct {
	Head, LIB uint64
	// Time is the head block's time; zero when the node did not say.
	Time time.Time
	// At is when the probe answered, by the pool's clock.
	At time.Time
}

// probeOutcome is the result of one probe of a node that answered.
type probeOutcome struct {
	kind Kind
	view headView // hived and hivemind
	// problem, when not empty, says why the node is out of service
	// whatever the others say (a hivemind or HAfAH node behind the chain,
	// a node that answers no probe in kind).
	problem string
}

// errProbeAnswer marks a probe answered with something that is not a
// JSON-RPC answer (an HTML page, an HTTP 4xx): the node is reachable but
// serves nothing the prober knows.
var errProbeAnswer = errors.New("not a JSON-RPC answer")

// probeAnswer is a node's JSON-RPC answer to a probe: its result, or
// isError when it answered an error object.
type probeAnswer struct {
	result  json.RawMessage
	isError bool
}

// detect probes n for its kind, starting with the kind it had. A transport
// failure (or a 5xx) ends it with the failure's cause.
func (p *Pool) detect(ctx context.Context, n *node, had Kind) (probeOutcome, error) {
	order := make([]Kind, 0, len(detectOrder))
	if had != KindUnknown {
		order = append(order, had)
	}
	for _, k := range detectOrder {
		if k != had {
			order = append(order, k)
		}
	}
	for i, k := range order {
		out, matched, err := p.probeKind(ctx, n, k, k == had)
		if err != nil {
			return probeOutcome{}, err
		}
		if matched {
			return out, nil
		}
		if i == 0 && had != KindUnknown {
			// The node no longer answers as it did: out of service now,
			// whatever else it answers, until a later probe finds its
			// kind again.
			o := probeOutcome{problem: "no longer answers its " + string(had) + " probe"}
			return o, nil
		}
	}
	return probeOutcome{problem: "answers no probe (not a JSON-RPC node?)"}, nil
}

// probeKind sends the probe of kind k to n. matched reports a JSON-RPC
// answer in kind. known is set when n already had kind k (a HAfAH node
// then skips its get_version).
func (p *Pool) probeKind(ctx context.Context, n *node, k Kind, known bool) (out probeOutcome, matched bool, err error) {
	out.kind = k
	switch k {
	case KindHived:
		a, err := p.probeCall(ctx, n, "database_api.get_dynamic_global_properties", `{}`)
		if err != nil || a.isError {
			return out, false, transportOnly(err)
		}
		v, ok := hivedView(a.result)
		if !ok {
			return out, false, nil
		}
		v.At = p.opts.Now()
		out.view = v
		return out, true, nil
	case KindHivemind:
		a, err := p.probeCall(ctx, n, "hive.db_head_state", `{}`)
		if err != nil || a.isError {
			return out, false, transportOnly(err)
		}
		var st struct {
			Block *uint64 `json:"db_head_block"`
			Time  string  `json:"db_head_time"`
		}
		if !decodes(a.result, &st) || st.Block == nil {
			return out, false, nil
		}
		out.view = headView{Head: *st.Block, Time: parseBlockTime(st.Time), At: p.opts.Now()}
		out.problem = p.syncProblem("hivemind", out.view)
		return out, true, nil
	case KindHAfAH:
		if !known {
			a, err := p.probeCall(ctx, n, "hive_api.get_version", `{}`)
			if err != nil || a.isError {
				return out, false, transportOnly(err)
			}
			var v struct {
				App string `json:"app_name"`
			}
			if !decodes(a.result, &v) || !strings.Contains(strings.ToLower(v.App), "hafah") {
				return out, false, nil
			}
		}
		problem, err := p.hafahProblem(ctx, n)
		if err != nil {
			return out, false, transportOnly(err)
		}
		out.problem = problem
		return out, true, nil
	default:
		if _, err := p.probeCall(ctx, n, "jsonrpc.get_methods", `{}`); err != nil {
			return out, false, transportOnly(err)
		}
		return out, true, nil
	}
}

// transportOnly keeps the errors that mean the node cannot be reached (and
// so end the probe), dropping errProbeAnswer (the node answered, not in
// kind).
func transportOnly(err error) error {
	if errors.Is(err, errProbeAnswer) {
		return nil
	}
	return err
}

// hivedView reads a get_dynamic_global_properties result; ok is false when
// it has no head block number.
func hivedView(result json.RawMessage) (headView, bool) {
	props, ok := readProps(result)
	if !ok || props.Head == 0 {
		return headView{}, false
	}
	var t struct {
		Time string `json:"time"`
	}
	_ = json.Unmarshal(result, &t)
	return headView{Head: props.Head, LIB: props.LIB, Time: parseBlockTime(t.Time)}, true
}

// parseBlockTime reads a block time as hived ("2016-09-15T19:47:21", UTC)
// or hivemind ("2016-09-15 19:48:33") writes it; zero when it cannot.
func parseBlockTime(s string) time.Time {
	for _, layout := range [...]string{"2006-01-02T15:04:05.999999999", "2006-01-02 15:04:05.999999999", time.RFC3339Nano, "2006-01-02 15:04:05.999999999Z07"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// syncProblem judges the last block a hivemind node imported by its age.
func (p *Pool) syncProblem(what string, v headView) string {
	now := p.opts.Now()
	switch {
	case v.Time.IsZero():
		return what + " head block " + strconv.FormatUint(v.Head, 10) + " has no time"
	case v.Time.After(now.Add(maxClockSkew)):
		return what + " head block time " + v.Time.Format(time.DateTime) + " is in the future"
	case p.opts.MaxSyncAge > 0 && now.Sub(v.Time) > p.opts.MaxSyncAge:
		return what + " head block " + strconv.FormatUint(v.Head, 10) + " is " + roundAge(now.Sub(v.Time)) + " old (max " + p.opts.MaxSyncAge.String() + ")"
	}
	return ""
}

// hafahProblem judges a HAfAH node by whether it serves the block the
// chain had MaxSyncAge ago: HAfAH answers an empty header for a block it
// has not imported yet. Without a trusted chain head (no hived backend
// agreed on one yet), or with the check off, it is judged by answering
// only.
func (p *Pool) hafahProblem(ctx context.Context, n *node) (string, error) {
	head := p.chainHead()
	behind := uint64(p.opts.MaxSyncAge / blockInterval)
	if p.opts.MaxSyncAge < 0 || head <= behind+1 {
		return "", nil
	}
	want := head - behind
	a, err := p.probeCall(ctx, n, "block_api.get_block_header", `{"block_num":`+strconv.FormatUint(want, 10)+`}`)
	if err != nil {
		return "", err
	}
	if a.isError {
		return "HAfAH answers an error for block " + strconv.FormatUint(want, 10), nil
	}
	var h struct {
		Header *struct {
			Timestamp string `json:"timestamp"`
		} `json:"header"`
	}
	if !decodes(a.result, &h) || h.Header == nil {
		return "HAfAH lacks block " + strconv.FormatUint(want, 10) + ": more than " + p.opts.MaxSyncAge.String() + " behind the chain head " + strconv.FormatUint(head, 10), nil
	}
	return "", nil
}

// decodes reports whether raw decodes into v.
func decodes(raw json.RawMessage, v any) bool { return json.Unmarshal(raw, v) == nil }

// roundAge renders an age to the second.
func roundAge(d time.Duration) string { return d.Round(time.Second).String() }

// probeCall sends one probe call to n and returns its answer. The error is
// a transport failure (also an HTTP 5xx), or errProbeAnswer for an answer
// that is not a JSON-RPC response.
func (p *Pool) probeCall(ctx context.Context, n *node, method, params string) (probeAnswer, error) {
	var raw []byte
	// A probe's id is random like a call's (ids.go), so that a node cannot
	// tell probes from calls by their id, and its answer must carry it.
	id := p.newID()
	if n.ws != nil {
		r, f := n.ws.roundTrip(ctx, p, newBody(id, method, []byte(params)), id)
		if f != nil {
			return probeAnswer{}, f.cause
		}
		raw = r
	} else {
		ex := p.getExchange()
		defer p.putExchange(ex)
		resp, err := p.send(ctx, n.transport, n, ex, newBody(id, method, []byte(params)))
		if err != nil {
			ex.finish(false)
			return probeAnswer{}, describeTransport(n, err, "probe")
		}
		if resp.StatusCode < 300 {
			raw = p.readProbe(resp)
		} else {
			p.drain(resp.Body)
		}
		_ = resp.Body.Close()
		ex.finish(false)
		if resp.StatusCode >= 500 {
			return probeAnswer{}, httpStatusCause(n, resp.StatusCode, "probe")
		}
	}
	var env struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if len(raw) == 0 || json.Unmarshal(raw, &env) != nil || !idMatches(env.ID, id) {
		return probeAnswer{}, errProbeAnswer
	}
	switch {
	case len(env.Error) > 0 && string(env.Error) != "null":
		return probeAnswer{isError: true}, nil
	case len(env.Result) > 0:
		return probeAnswer{result: env.Result}, nil
	}
	return probeAnswer{}, errProbeAnswer
}
