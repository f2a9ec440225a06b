import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { isLociError } from '../../errors/index.js';
import { createHostMatcher, validateToken, webGuard } from './web-guard.js';

describe('createHostMatcher', () => {
  it('accepts loopback names on the server port only', () => {
    const hosts = createHostMatcher({ boundHost: '127.0.0.1' });
    for (const host of ['localhost:7411', '127.0.0.1:7411', '[::1]:7411', 'LOCALHOST:7411']) expect(hosts.matches(host, 7411), host).toBe(true);
    for (const host of ['attacker.example:7411', 'localhost:7412', 'localhost', '127.0.0.1.nip.io:7411', '', undefined]) expect(hosts.matches(host, 7411), String(host)).toBe(false);
    expect(hosts.matches('localhost', 80)).toBe(true);
  });

  it('adds the bound address and the names the user allows', () => {
    const hosts = createHostMatcher({ boundHost: '192.168.1.5', allowedHosts: ['loci.lan', 'proxy.lan:8443'] });
    expect(hosts.matches('192.168.1.5:7411', 7411)).toBe(true);
    expect(hosts.matches('loci.lan:7411', 7411)).toBe(true);
    expect(hosts.matches('proxy.lan:8443', 7411)).toBe(true);
    expect(hosts.matches('proxy.lan:7411', 7411)).toBe(false);
    expect(hosts.list(7411)).toEqual(expect.arrayContaining(['localhost:7411', '[::1]:7411', '192.168.1.5:7411', 'loci.lan:7411', 'proxy.lan:8443']));
  });
});

describe('webGuard', () => {
  const app = new Hono();
  app.use('*', webGuard(createHostMatcher({})));
  app.all('*', (c) => c.json({ ok: true }));
  const send = (headers: Record<string, string>, init: RequestInit = {}) => app.request('http://127.0.0.1:7411/v1/x', { ...init, headers: { host: '127.0.0.1:7411', ...headers } });

  it('refuses foreign Hosts and Origins with 403, non-JSON bodies with 415', async () => {
    expect((await send({ host: 'attacker.example:7411' })).status).toBe(403);
    expect((await send({ origin: 'http://attacker.example' })).status).toBe(403);
    expect((await send({ origin: 'null' })).status).toBe(403);
    expect((await send({ 'content-type': 'text/plain' }, { method: 'POST', body: '{}' })).status).toBe(415);
    expect((await send({}, { method: 'POST' })).status).toBe(415);
    expect((await send({ 'content-type': 'multipart/form-data; boundary=x' }, { method: 'PATCH', body: '--x--' })).status).toBe(415);
  });

  it('lets local programs and same-origin pages through', async () => {
    expect((await send({})).status).toBe(200);
    expect((await send({ 'content-type': 'application/json; charset=utf-8' }, { method: 'POST', body: '{}' })).status).toBe(200);
    expect((await send({ origin: 'http://127.0.0.1:7411', 'content-type': 'application/json' }, { method: 'POST', body: '{}' })).status).toBe(200);
    expect((await send({}, { method: 'DELETE' })).status).toBe(200);
  });
});

describe('validateToken', () => {
  it('refuses tokens under 16 characters with a usage error', () => {
    let caught: unknown;
    try {
      validateToken('a');
    } catch (error) {
      caught = error;
    }
    expect(isLociError(caught) && caught.category).toBe('usage');
    expect(() => validateToken('0123456789abcdef')).not.toThrow();
  });
});
