// hivegate's Hive transaction package (hivetx/) against hive-tx and
// @hiveio/dhive: the same transactions give the same digest, id and keys in
// all three, each library's signature verifies in the others, and the
// transactions hivegate signed (hivetx/testdata/crosscheck_hivegate.json,
// checked byte for byte by go test ./hivetx) verify in hive-tx and dhive.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { Transaction, PublicKey, Signature } from 'hive-tx'
import dhive from '@hiveio/dhive'
import { cases, derive, chainId, password } from './vectors.mjs'

const read = (name) => JSON.parse(readFileSync(new URL(`../../hivetx/testdata/${name}`, import.meta.url), 'utf8'))
const recorded = read('crosscheck.json')
const signed = read('crosscheck_hivegate.json')

const verifyBoth = (digestHex, sigHex, pubKey) => {
  const digest = Buffer.from(digestHex, 'hex')
  assert.ok(PublicKey.from(pubKey).verify(digest, Signature.from(sigHex)), 'hive-tx verifies')
  const recovered = dhive.Signature.fromString(sigHex).recover(digest).toString()
  assert.equal(recovered, pubKey, 'dhive recovers the signer')
}

test('the recorded vectors are what hive-tx and dhive compute now', () => {
  assert.equal(recorded.chain_id, chainId)
  assert.equal(recorded.password, password)
  assert.equal(recorded.cases.length, cases.length)
  for (const [i, c] of cases.entries()) {
    const d = derive(c)
    const r = recorded.cases[i]
    assert.equal(r.name, c.name)
    assert.equal(d.digest, r.digest, `${c.name}: digest`)
    assert.equal(d.id, r.id, `${c.name}: hive-tx id`)
    assert.equal(d.dhive_id, r.id, `${c.name}: dhive id`)
    assert.equal(d.public_key, r.public_key, `${c.name}: key from login`)
    // dhive signs deterministically; hive-tx mixes in fresh randomness.
    assert.equal(d.signatures.dhive, r.signatures.dhive, `${c.name}: dhive signature`)
    for (const sig of Object.values(d.signatures)) verifyBoth(d.digest, sig, d.public_key)
  }
})

test('every transaction hivegate signed verifies in hive-tx and dhive', () => {
  assert.equal(signed.cases.length, recorded.cases.length)
  for (const [i, s] of signed.cases.entries()) {
    const r = recorded.cases[i]
    assert.equal(s.name, r.name)
    const tx = new Transaction({ transaction: structuredClone(s.transaction) })
    const { digest, txId } = tx.digest()
    assert.equal(txId, s.id, `${s.name}: id hivegate reports`)
    assert.equal(txId, r.id, `${s.name}: same transaction as the vector`)
    assert.equal(s.transaction.signatures.length, 1)
    verifyBoth(Buffer.from(digest).toString('hex'), s.transaction.signatures[0], r.public_key)
    const dtx = structuredClone(s.transaction)
    delete dtx.signatures
    assert.equal(dhive.cryptoUtils.generateTrxId(dtx), s.id, `${s.name}: dhive id`)
  }
})
