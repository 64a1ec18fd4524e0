// Package has is the HiveAuth protocol (HAS, docs.hiveauth.com; the app
// side as hive-auth-wrapper speaks it): the messages an app, a HAS relay
// and a wallet (PKSA) exchange over a WebSocket, the CryptoJS-compatible
// encryption of their payloads with the auth_key the app shares out of
// band (a QR code or a has://auth_req/ deep link), and an app-side client
// of a relay. Package auth logs users in with it; package hassim
// simulates a relay and a wallet with the same messages.
package has
