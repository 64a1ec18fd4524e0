package backend

// ArmDelay is armDelay, for the external tests.
const ArmDelay = armDelay

// ServeRaw is serveRaw, for the external tests.
var ServeRaw = serveRaw
