package h1serve

// WatchDelay is watchDelay, for the external tests.
const WatchDelay = watchDelay
