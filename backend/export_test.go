package backend

// ArmDelay is armDelay, for the external tests.
const ArmDelay = armDelay
