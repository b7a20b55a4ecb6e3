import { describe, expect, it } from 'vitest';
import { URL_REASONS, checkWebhookUrl, isAddressAllowed, isLocalhostName, isLoopback } from '../../functions/events/url-policy';

const reason = (url: string, stage: 'sandbox' | 'live') => {
  const r = checkWebhookUrl(url, stage);
  return r.ok ? 'ok' : r.reason;
};

describe('webhook URL policy (DESIGN 6.9)', () => {
  it('accepts only http and https anywhere', () => {
    for (const url of ['ftp://example.com/x', 'file:///etc/passwd', 'gopher://example.com', 'javascript:alert(1)', 'ws://example.com', 'data:text/plain,hi']) {
      expect(reason(url, 'sandbox'), url).toBe(URL_REASONS.scheme);
      expect(reason(url, 'live'), url).toBe(URL_REASONS.scheme);
    }
    expect(reason('not a url', 'sandbox')).toBe(URL_REASONS.invalid);
    expect(reason('/relative/path', 'sandbox')).toBe(URL_REASONS.invalid);
    expect(reason(`https://example.com/${'a'.repeat(2048)}`, 'live')).toBe(URL_REASONS.tooLong);
  });

  it('sandbox: http and loopback are fine (local receivers), private too', () => {
    for (const url of ['http://127.0.0.1:4000/hook', 'http://localhost:3000/hook', 'http://[::1]:8080/', 'http://10.1.2.3/h', 'http://192.168.1.10/h', 'https://example.com/hook', 'http://example.com/hook']) {
      expect(reason(url, 'sandbox'), url).toBe('ok');
    }
  });

  it('sandbox still refuses link-local (metadata), unspecified, multicast and credentials', () => {
    for (const url of ['http://169.254.169.254/latest/meta-data', 'http://[fe80::1]/', 'http://0.0.0.0:8080/', 'http://[::]/', 'http://224.0.0.1/', 'http://255.255.255.255/']) {
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
    for (const url of ['https://172.32.0.1/', 'https://172.15.255.255/', 'https://11.0.0.1/', 'https://192.169.0.1/', 'https://100.128.0.1/']) {
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
