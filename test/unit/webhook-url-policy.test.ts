import { describe, expect, it } from 'vitest';
import { URL_REASONS, checkWebhookUrl, isAddressAllowed, isLocalhostName, isLoopback } from '../../functions/webhooks/url-policy';

const reason = (url: string, stage: 'sandbox' | 'live') => {
  const r = checkWebhookUrl(url, stage);
  return r.ok ? 'ok' : r.reason;
};

describe('webhook URL policy (DESIGN 6.9)', () => {
  it('accepts only http and https anywhere', () => {
    for (const url of [
      'ftp://example.com/x',
      'file:///etc/passwd',
      'gopher://example.com',
      'javascript:alert(1)',
      'ws://example.com',
      'data:text/plain,hi',
    ]) {
      expect(reason(url, 'sandbox'), url).toBe(URL_REASONS.scheme);
      expect(reason(url, 'live'), url).toBe(URL_REASONS.scheme);
    }
    expect(reason('not a url', 'sandbox')).toBe(URL_REASONS.invalid);
    expect(reason('/relative/path', 'sandbox')).toBe(URL_REASONS.invalid);
    expect(reason(`https://example.com/${'a'.repeat(2048)}`, 'live')).toBe(URL_REASONS.tooLong);
  });

  it('sandbox: http and loopback are fine (local receivers), private too', () => {
    for (const url of [
      'http://127.0.0.1:4000/hook',
      'http://localhost:3000/hook',
      'http://[::1]:8080/',
      'http://10.1.2.3/h',
      'http://192.168.1.10/h',
      'https://example.com/hook',
      'http://example.com/hook',
    ]) {
      expect(reason(url, 'sandbox'), url).toBe('ok');
    }
  });

  it('sandbox still refuses link-local (metadata), unspecified, multicast and credentials', () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data',
      'http://[fe80::1]/',
      'http://0.0.0.0:8080/',
      'http://[::]/',
      'http://224.0.0.1/',
      'http://255.255.255.255/',
    ]) {
      expect(reason(url, 'sandbox'), url).toBe(URL_REASONS.address);
    }
    expect(reason('http://user:pw@127.0.0.1/', 'sandbox')).toBe(URL_REASONS.credentials);
    expect(reason('https://token@example.com/', 'live')).toBe(URL_REASONS.credentials);
  });

  it('live: https only', () => {
    expect(reason('http://example.com/hook', 'live')).toBe(URL_REASONS.httpsOnly);
    expect(reason('https://example.com/hook', 'live')).toBe('ok');
    expect(reason('https://hooks.example.ng:8443/a?b=c', 'live')).toBe('ok');
    expect(reason('https://8.8.8.8/hook', 'live')).toBe('ok');
    expect(reason('https://[2001:4860:4860::8888]/hook', 'live')).toBe('ok');
  });

  it('live: refuses localhost, private, loopback, link-local and 0.0.0.0, in any spelling', () => {
    const refused = [
      'https://localhost/hook',
      'https://LOCALHOST./hook',
      'https://api.localhost/hook',
      'https://127.0.0.1/hook',
      'https://127.1.2.3/hook',
      'https://2130706433/hook', // 127.0.0.1 as one number
      'https://0x7f.1/hook', // 127.0.0.1 in hex
      'https://10.0.0.1/hook',
      'https://172.16.0.1/hook',
      'https://172.31.255.255/hook',
      'https://192.168.0.1/hook',
      'https://169.254.169.254/hook',
      'https://100.64.0.1/hook',
      'https://0.0.0.0/hook',
      'https://[::1]/hook',
      'https://[::]/hook',
      'https://[fc00::1]/hook',
      'https://[fd12:3456::1]/hook',
      'https://[fe80::1]/hook',
      'https://[::ffff:127.0.0.1]/hook', // IPv4-mapped loopback
      'https://[::ffff:10.0.0.1]/hook',
    ];
    for (const url of refused) expect(reason(url, 'live'), url).toBe(URL_REASONS.address);
    // neighbours of the private ranges are public
    for (const url of [
      'https://172.32.0.1/',
      'https://172.15.255.255/',
      'https://11.0.0.1/',
      'https://192.169.0.1/',
      'https://100.128.0.1/',
    ]) {
      expect(reason(url, 'live'), url).toBe('ok');
    }
  });

  it('address checks used after DNS resolution', () => {
    expect(isAddressAllowed('93.184.216.34', 'live')).toBe(true);
    expect(isAddressAllowed('127.0.0.1', 'live')).toBe(false);
    expect(isAddressAllowed('127.0.0.1', 'sandbox')).toBe(true);
    expect(isAddressAllowed('::ffff:192.168.1.1', 'live')).toBe(false);
    expect(isAddressAllowed('169.254.10.10', 'sandbox')).toBe(false);
    expect(isAddressAllowed('not-an-ip', 'sandbox')).toBe(false);
    expect(isAddressAllowed('[::1]', 'live')).toBe(false);
    expect(isLoopback('127.0.0.53')).toBe(true);
    expect(isLoopback('::1')).toBe(true);
    expect(isLoopback('10.0.0.1')).toBe(false);
    expect(isLocalhostName('Foo.LocalHost.')).toBe(true);
    expect(isLocalhostName('localhost.example.com')).toBe(false);
  });
});

describe('delivery-time address guard', () => {
  it('on Lambda, loopback is refused in every stage (the runtime API listens there)', async () => {
    const { addressPermitted } = await import('../../functions/webhooks/transport');
    const saved = process.env.AWS_LAMBDA_RUNTIME_API;
    try {
      delete process.env.AWS_LAMBDA_RUNTIME_API;
      expect(addressPermitted('127.0.0.1', 'sandbox')).toBe(true);
      process.env.AWS_LAMBDA_RUNTIME_API = '127.0.0.1:9001';
      expect(addressPermitted('127.0.0.1', 'sandbox')).toBe(false);
      expect(addressPermitted('::1', 'sandbox')).toBe(false);
      expect(addressPermitted('10.0.0.1', 'sandbox')).toBe(true);
      expect(addressPermitted('93.184.216.34', 'live')).toBe(true);
    } finally {
      if (saved === undefined) delete process.env.AWS_LAMBDA_RUNTIME_API;
      else process.env.AWS_LAMBDA_RUNTIME_API = saved;
    }
  });
});

describe('release 2 ranges (DESIGN 8.1), boundaries', () => {
  const both = (a: string) => [isAddressAllowed(a, 'sandbox'), isAddressAllowed(a, 'live')];

  it('live refuses NAT64, 6to4, Teredo, unique local and link-local IPv6; sandbox accepts them (except link-local)', () => {
    const liveOnly: [string, string, string][] = [
      // [range, first address, last address]
      ['64:ff9b::/96', '64:ff9b::', '64:ff9b::ffff:ffff'],
      ['64:ff9b:1::/48', '64:ff9b:1::', '64:ff9b:1:ffff:ffff:ffff:ffff:ffff'],
      ['2002::/16', '2002::', '2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
      ['2001::/32', '2001::', '2001:0:ffff:ffff:ffff:ffff:ffff:ffff'],
      ['fc00::/7', 'fc00::', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
    ];
    for (const [range, first, last] of liveOnly) {
      expect(both(first), `${range} first`).toEqual([true, false]);
      expect(both(last), `${range} last`).toEqual([true, false]);
    }
    // fe80::/10 is refused in both stages
    expect(both('fe80::')).toEqual([false, false]);
    expect(both('febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff')).toEqual([false, false]);
    // just outside each range: public
    for (const a of [
      '64:ff9a:ffff:ffff:ffff:ffff:ffff:ffff',
      '64:ff9b::1:0:0',
      '64:ff9b:0:ffff:ffff:ffff:ffff:ffff',
      '64:ff9b:2::',
      '2001:1::',
      '2001:db7:ffff::1',
      '2003::',
      '2001:4860:4860::8888',
      'fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
      'fe00::',
      'fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff',
    ]) {
      expect(both(a), a).toEqual([true, true]);
    }
    for (const url of [
      'https://[64:ff9b::a00:1]/h',
      'https://[64:ff9b:1::1]/h',
      'https://[2002:c0a8:101::1]/h',
      'https://[2001:0:4136:e378::1]/h',
      'https://[fd00::1]/h',
    ]) {
      expect(reason(url, 'live'), url).toBe(URL_REASONS.address);
      expect(reason(url.replace('https:', 'http:'), 'sandbox'), url).toBe('ok');
    }
  });

  it('both stages refuse the AWS IPv6 metadata address and 169.254/16, also embedded in IPv6', () => {
    expect(both('fd00:ec2::254')).toEqual([false, false]);
    expect(both('fd00:ec2:0:0:0:0:0:254')).toEqual([false, false]);
    expect(both('fd00:ec2::253')).toEqual([true, false]); // only the metadata address in sandbox
    expect(both('fd00:ec2::255')).toEqual([true, false]);
    expect(both('169.254.0.0')).toEqual([false, false]);
    expect(both('169.254.255.255')).toEqual([false, false]);
    expect(both('169.253.255.255')).toEqual([true, true]);
    expect(both('169.255.0.0')).toEqual([true, true]);
    for (const a of [
      '::ffff:169.254.169.254',
      '::ffff:a9fe:a9fe',
      '0:0:0:0:0:ffff:169.254.0.1',
      '::ffff:169.254.0.0',
      '::ffff:169.254.255.255',
      '::169.254.169.254',
      '64:ff9b::169.254.169.254',
      '2002:a9fe:a9fe::1',
    ]) {
      expect(both(a), a).toEqual([false, false]);
    }
    expect(both('::ffff:169.253.255.255')).toEqual([true, true]);
    expect(both('::ffff:169.255.0.0')).toEqual([true, true]);
    for (const url of [
      'http://[fd00:ec2::254]/latest/meta-data',
      'http://[::ffff:169.254.169.254]/',
      'http://[::ffff:a9fe:a9fe]/',
      'http://169.254.0.1/',
    ]) {
      expect(reason(url, 'sandbox'), url).toBe(URL_REASONS.address);
      expect(reason(url.replace('http:', 'https:'), 'live'), url).toBe(URL_REASONS.address);
    }
    // sandbox still accepts http and loopback
    expect(reason('http://127.0.0.1:4000/hook', 'sandbox')).toBe('ok');
    expect(reason('http://[::1]:4000/hook', 'sandbox')).toBe('ok');
  });

  it('a name that resolves to 169.254/16 or fd00:ec2::254 is refused at connect time in both stages', async () => {
    const { guardedLookup } = await import('../../functions/webhooks/transport');
    const resolveTo =
      (...addresses: string[]) =>
      (_h: string, _o: unknown, cb: (e: null, a: { address: string; family: number }[]) => void) =>
        cb(
          null,
          addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
        );
    const look = (stage: 'sandbox' | 'live', ...addresses: string[]) =>
      new Promise<string>((ok) =>
        guardedLookup(stage, resolveTo(...addresses) as never)('hooks.example.com', {}, (err, address) =>
          ok(err ? ((err as { code?: string }).code ?? 'error') : String(address)),
        ),
      );
    for (const stage of ['sandbox', 'live'] as const) {
      expect(await look(stage, '169.254.169.254')).toBe('EADDRNOTALLOWED');
      expect(await look(stage, '93.184.216.34', 'fd00:ec2::254')).toBe('EADDRNOTALLOWED');
      expect(await look(stage, '::ffff:169.254.169.254')).toBe('EADDRNOTALLOWED');
      expect(await look(stage, '93.184.216.34')).toBe('93.184.216.34');
    }
    expect(await look('sandbox', '127.0.0.1')).toBe('127.0.0.1');
    expect(await look('live', '127.0.0.1')).toBe('EADDRNOTALLOWED');
  });
});
