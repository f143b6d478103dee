import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clientNetwork } from '../../../src/platform/http/client-network.js';

test('an IPv4 client is its address, an IPv6 client its /64', () => {
  const cases: [string, string][] = [
    ['203.0.113.5', '203.0.113.5'],
    ['::ffff:203.0.113.5', '203.0.113.5'],
    ['::ffff:cb00:7105', '203.0.113.5'],
    ['2001:db8:1:2::1', '2001:db8:1:2::/64'],
    ['2001:0DB8:0001:0002:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['not an address', 'not an address'],
  ];
  for (const [address, network] of cases) assert.equal(clientNetwork(address), network, address);
});
