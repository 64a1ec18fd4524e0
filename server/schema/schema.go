// Package schema links every generated Protobuf package of hivegate's API
// into the binary, so that their files and types are in protoregistry's
// global registries. The server finds the typed RPCs there (through
// transcode.Registry), and so do the tests that walk every typed method:
// both import this package, so a new API package is added here once.
package schema

import (
	_ "github.com/hivegate/hivegate/gen/hive/account_by_key_api/v1"
	_ "github.com/hivegate/hivegate/gen/hive/account_history_api/v1"
	_ "github.com/hivegate/hivegate/gen/hive/block_api/v1"
	_ "github.com/hivegate/hivegate/gen/hive/bridge/v1"
	_ "github.com/hivegate/hivegate/gen/hive/condenser_api/v1"
	_ "github.com/hivegate/hivegate/gen/hive/database_api/v1"
	_ "github.com/hivegate/hivegate/gen/hive/follow_api/v1"
	_ "github.com/hivegate/hivegate/gen/hive/hive_api/v1"
	_ "github.com/hivegate/hivegate/gen/hive/hivemind_api/v1"
	_ "github.com/hivegate/hivegate/gen/hive/market_history_api/v1"
	_ "github.com/hivegate/hivegate/gen/hive/rc_api/v1"
	_ "github.com/hivegate/hivegate/gen/hive/reputation_api/v1"
	_ "github.com/hivegate/hivegate/gen/hive/search_api/v1"
	_ "github.com/hivegate/hivegate/gen/hive/tags_api/v1"
	_ "github.com/hivegate/hivegate/gen/hive/transaction_status_api/v1"
	_ "github.com/hivegate/hivegate/gen/hive/types/v1"
	_ "github.com/hivegate/hivegate/gen/hivegate/v1"
)
