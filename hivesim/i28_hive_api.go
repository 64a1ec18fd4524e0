package hivesim

// simCommit is the commit the simulated HAfAH names in hive_api.get_version.
const simCommit = "0000000000000000000000000000000000000000"

// registerI28Methods adds the methods typed in session 8 (issue 28 item 6)
// and the lists that session made walkable (item 1), after the other
// method files: an entry here replaces one registered before.
func registerI28Methods(r registry) {
	r.hafah("hive_api.get_version", hiveAPIGetVersion)
}

// hiveAPIGetVersion answers hive_api.get_version as HAfAH does
// (hafah_endpoints.get_version): {"app_name": "PostgRESTHAfAH", "commit": ...}.
// HAfAH reads no params.
func hiveAPIGetVersion(_ *callCtx, _ any, w *jw) *rpcError {
	w.objBegin()
	w.kstr("app_name", "PostgRESTHAfAH")
	w.kstr("commit", simCommit)
	w.objEnd()
	return nil
}
