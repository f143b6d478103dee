import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { formatOriginRule, originAllowed, parseOriginRule } from '../../src/keys/origins.js';

test('origin rules parse to canonical form', () => {
  const canonical: [string, string][] = [
    ['Example.COM', 'example.com'],
    ['*.example.com', '*.example.com'],
    ['https://example.com', 'https://example.com'],
    ['example.com:8080', 'example.com:8080'],
    ['http://*.a.b.c:1', 'http://*.a.b.c:1'],
    ['localhost', 'localhost'],
    ['127.0.0.1:3000', '127.0.0.1:3000'],
  ];
  for (const [input, expected] of canonical) assert.equal(formatOriginRule(parseOriginRule(input)!), expected);
  for (const bad of ['', '*', '*.', 'ftp://example.com', 'example.com/', 'a..b', '-a.com', 'a b', 'example.com:0', 'example.com:65536', '*.*.a.com', 'https://']) {
    assert.equal(parseOriginRule(bad), null, bad);
  }
});

test('the parser never throws and what it accepts round-trips', () => {
  fc.assert(
    fc.property(fc.string(), (text) => {
      const rule = parseOriginRule(text);
      if (rule) assert.deepEqual(parseOriginRule(formatOriginRule(rule)), rule);
    }),
    { numRuns: 2000 },
  );
  fc.assert(
    fc.property(fc.domain(), (domain) => {
      const rule = parseOriginRule(domain);
      assert.ok(rule, domain);
      assert.ok(originAllowed([rule], `https://${domain}`, undefined));
      assert.ok(!originAllowed([rule], `https://x${domain}`, undefined));
      assert.ok(!originAllowed([rule], `https://sub.${domain}`, undefined));
    }),
  );
});

test('a key without rules admits any request, a key with rules needs a matching Origin or Referer', () => {
  assert.ok(originAllowed([], undefined, undefined));
  const rules = [parseOriginRule('*.example.com')!];
  assert.ok(originAllowed(rules, 'https://a.example.com', undefined));
  assert.ok(!originAllowed(rules, undefined, undefined));
  assert.ok(originAllowed(rules, undefined, 'https://b.example.com/page'));
  assert.ok(!originAllowed(rules, 'file://', undefined));
  assert.ok(!originAllowed(rules, 'chrome-extension://a.example.com', undefined));
});

test('an Origin that is not a URL is refused, not passed over for the Referer; an absent or null Origin leaves it to the Referer', () => {
  const rules = [parseOriginRule('example.com')!];
  const referer = 'https://example.com/page';
  // RFC 6454: an Origin header is `null` or serialized origins (scheme://host[:port]); an empty one is neither.
  for (const origin of ['not a url', 'example.com', 'https://', 'file://', '//example.com', '']) {
    assert.equal(originAllowed(rules, origin, referer), false, `Origin ${JSON.stringify(origin)}`);
  }
  assert.equal(originAllowed(rules, undefined, referer), true, 'no Origin: the Referer decides');
  assert.equal(originAllowed(rules, 'null', referer), true, 'Origin null: the Referer decides');
  assert.equal(originAllowed(rules, 'null', 'https://other.com/page'), false);
  assert.equal(originAllowed(rules, 'https://example.com', undefined), true);
});
