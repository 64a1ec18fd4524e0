package gateway

import "github.com/hivegate/hivegate/config"

// Check builds everything New builds from cfg — router, backend pool,
// dispatcher, the Redis tier's clients, the auth service and its call
// policy (auth.require_token), the quota counters and policy
// (quotas.weights, quotas.keys), tracing, the handler trees — and
// releases it again, so that `hivegate config check` reports every error
// `hivegate serve` and a reload would, each naming file, line and key as
// theirs do. It opens no listener, starts no prober or LIB polling and
// contacts no node nor Redis (the Redis clients connect lazily; the
// shared last irreversible block is not read). Secrets the config names
// by file or environment variable (auth.token_key_file,
// auth.service_key_env) are read, as serve reads them.
func Check(cfg *config.Config) error {
	g, err := newGateway(cfg, Options{}, true)
	if err != nil {
		return err
	}
	g.Close()
	return nil
}
