package auth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"connectrpc.com/connect"
	"google.golang.org/protobuf/types/known/timestamppb"

	authv1 "github.com/hivegate/hivegate/gen/hivegate/auth/v1"
	"github.com/hivegate/hivegate/gen/hivegate/auth/v1/authv1connect"
	"github.com/hivegate/hivegate/hivetx"
	"github.com/hivegate/hivegate/signer"
)

// rpcService is hivegate.auth.v1.AuthService: /api/me and /api/broadcast for
// typed clients, through the same checks.
type rpcService struct {
	s *Service
}

// ConnectHandler returns the path and handler of hivegate.auth.v1.AuthService
// (Connect, gRPC and gRPC-Web).
func (s *Service) ConnectHandler(opts ...connect.HandlerOption) (string, http.Handler) {
	return authv1connect.NewAuthServiceHandler(&rpcService{s: s}, opts...)
}

// ServiceName is the typed service's full name, for reflection and health.
const ServiceName = authv1connect.AuthServiceName

func (r *rpcService) token(ctx context.Context, h http.Header) (Token, error) {
	t, err := r.s.Verify(ctx, Bearer(&http.Request{Header: h}))
	if err != nil {
		if errors.Is(err, ErrStoreDown) {
			return Token{}, connect.NewError(connect.CodeUnavailable, err)
		}
		ce := connect.NewError(connect.CodeUnauthenticated, err)
		ce.Meta().Set("WWW-Authenticate", `Bearer realm="hivegate", error="invalid_token"`)
		return Token{}, ce
	}
	return t, nil
}

// Me implements AuthService.Me.
func (r *rpcService) Me(ctx context.Context, req *connect.Request[authv1.MeRequest]) (*connect.Response[authv1.MeResponse], error) {
	t, err := r.token(ctx, req.Header())
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(&authv1.MeResponse{
		User: t.User, ClientId: t.ClientID, Scopes: t.Scopes, ExpiresAt: timestamppb.New(t.Expires),
		Operations: signer.OperationNames(t.Scopes),
	}), nil
}

// Broadcast implements AuthService.Broadcast.
func (r *rpcService) Broadcast(ctx context.Context, req *connect.Request[authv1.BroadcastRequest]) (*connect.Response[authv1.BroadcastResponse], error) {
	t, err := r.token(ctx, req.Header())
	if err != nil {
		return nil, err
	}
	ops := make([]hivetx.Operation, 0, len(req.Msg.GetOperations()))
	for i, po := range req.Msg.GetOperations() {
		op, err := typedOperation(po)
		if err != nil {
			return nil, connect.NewError(connect.CodeInvalidArgument, fmt.Errorf("operations[%d]: %w", i, err))
		}
		ops = append(ops, op)
	}
	raw, e := r.s.broadcastOps(ctx, t, ops)
	if e != nil {
		return nil, connectError(e)
	}
	var res struct {
		ID       string `json:"id"`
		BlockNum uint32 `json:"block_num"`
		TrxNum   uint32 `json:"trx_num"`
		Expired  bool   `json:"expired"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return nil, connect.NewError(connect.CodeInternal, errors.New("the node's answer could not be read"))
	}
	return connect.NewResponse(&authv1.BroadcastResponse{Id: res.ID, BlockNum: res.BlockNum, TrxNum: res.TrxNum, Expired: res.Expired}), nil
}

// connectError maps an API refusal to its Connect code.
func connectError(e *apiError) error {
	code := e.rpc
	if code == 0 {
		switch e.status {
		case http.StatusForbidden:
			code = connect.CodePermissionDenied
		case http.StatusGatewayTimeout:
			code = connect.CodeDeadlineExceeded
		case http.StatusBadGateway, http.StatusServiceUnavailable:
			code = connect.CodeUnavailable
		case http.StatusTooManyRequests, http.StatusRequestEntityTooLarge:
			code = connect.CodeResourceExhausted
		default:
			code = connect.CodeInternal
		}
	}
	return connect.NewError(code, errors.New(e.desc))
}

// typedOperation turns a typed operation into hivetx's, with hived's
// defaults for unset comment options.
func typedOperation(po *authv1.PostingOperation) (hivetx.Operation, error) {
	n := func(v int64) json.Number { return json.Number(strconv.FormatInt(v, 10)) }
	names := func(ss []string) []any {
		out := make([]any, len(ss))
		for i, s := range ss {
			out[i] = s
		}
		return out
	}
	switch x := po.GetOperation().(type) {
	case *authv1.PostingOperation_Vote:
		v := x.Vote
		return hivetx.NewOperation("vote", map[string]any{"voter": v.GetVoter(), "author": v.GetAuthor(),
			"permlink": v.GetPermlink(), "weight": n(int64(v.GetWeight()))})
	case *authv1.PostingOperation_Comment:
		c := x.Comment
		return hivetx.NewOperation("comment", map[string]any{"parent_author": c.GetParentAuthor(),
			"parent_permlink": c.GetParentPermlink(), "author": c.GetAuthor(), "permlink": c.GetPermlink(),
			"title": c.GetTitle(), "body": c.GetBody(), "json_metadata": c.GetJsonMetadata()})
	case *authv1.PostingOperation_CustomJson:
		c := x.CustomJson
		return hivetx.NewOperation("custom_json", map[string]any{"required_auths": []any{},
			"required_posting_auths": names(c.GetRequiredPostingAuths()), "id": c.GetId(), "json": c.GetJson()})
	case *authv1.PostingOperation_DeleteComment:
		d := x.DeleteComment
		return hivetx.NewOperation("delete_comment", map[string]any{"author": d.GetAuthor(), "permlink": d.GetPermlink()})
	case *authv1.PostingOperation_CommentOptions:
		o := x.CommentOptions
		payout := "1000000.000 HBD"
		if o.MaxAcceptedPayout != nil {
			payout = o.GetMaxAcceptedPayout()
		}
		pct := uint32(10000)
		if o.PercentHbd != nil {
			pct = o.GetPercentHbd()
		}
		routes := make([]any, 0, len(o.GetBeneficiaries()))
		for _, b := range o.GetBeneficiaries() {
			routes = append(routes, map[string]any{"account": b.GetAccount(), "weight": n(int64(b.GetWeight()))})
		}
		ext := []any{}
		if len(routes) > 0 {
			ext = append(ext, []any{n(0), map[string]any{"beneficiaries": routes}})
		}
		return hivetx.NewOperation("comment_options", map[string]any{"author": o.GetAuthor(), "permlink": o.GetPermlink(),
			"max_accepted_payout": payout, "percent_hbd": n(int64(pct)),
			"allow_votes": o.AllowVotes == nil || o.GetAllowVotes(), "allow_curation_rewards": o.AllowCurationRewards == nil || o.GetAllowCurationRewards(),
			"extensions": ext})
	case *authv1.PostingOperation_ClaimRewardBalance:
		c := x.ClaimRewardBalance
		return hivetx.NewOperation("claim_reward_balance", map[string]any{"account": c.GetAccount(),
			"reward_hive": c.GetRewardHive(), "reward_hbd": c.GetRewardHbd(), "reward_vests": c.GetRewardVests()})
	case *authv1.PostingOperation_AccountUpdate2:
		a := x.AccountUpdate2
		return hivetx.NewOperation("account_update2", map[string]any{"account": a.GetAccount(), "json_metadata": "",
			"posting_json_metadata": a.GetPostingJsonMetadata(), "extensions": []any{}})
	}
	return hivetx.Operation{}, errors.New("no operation set")
}
