import { describe, expect, it } from 'vitest';
import { textsAgree } from './agreement.js';

describe('textsAgree', () => {
  it.each([
    ['The staging database port is 5432', 'The staging database port is 6543'],
    ['Do not delete the bucket', 'Do delete the bucket'],
    ["The build doesn't need Docker", 'The build does need Docker'],
    ['We never ship on Fridays', 'We ship on Fridays'],
    ['Alice owns the billing service', 'Bob owns the billing service'],
    ['Deploy the service to Frankfurt on Friday', 'Deploy the service to Singapore on Friday'],
    ['Set the config key "retries" in the app', 'Set the config key "timeout" in the app'],
    ['Call parseConfigFile for settings', 'Call loadSettingsFile for settings'],
    ['The API lives at https://api.example.com/v1', 'The API lives at https://api.example.org/v2'],
    ['the logs are in /var/log/app', 'the logs are in /srv/logs/app'],
    ['Keep two replicas', 'Keep three replicas'],
  ])('"%s" and "%s" disagree', (a, b) => {
    expect(textsAgree(a, b)).toBe(false);
    expect(textsAgree(b, a)).toBe(false);
  });

  it.each([
    ['Prefers dark mode in every editor.', 'prefers dark mode in every editor'],
    ['The staging database is on port 5,432', 'the staging database is on port 5432!'],
    ['Alice prefers tabs over spaces', 'alice prefers tabs over spaces.'],
    ["Don't delete the bucket", 'Do not delete the bucket'],
    ['The logs are in /var/log/app', 'Logs are in /var/log/app'],
  ])('"%s" and "%s" agree', (a, b) => {
    expect(textsAgree(a, b)).toBe(true);
    expect(textsAgree(b, a)).toBe(true);
  });

  it('stays linear on a long single token', () => {
    const long = 'a'.repeat(100_000);
    expect(textsAgree(`${long}1 x`, `${long}2 x`)).toBe(false);
    expect(textsAgree(`${long} x`, `${long} x`)).toBe(true);
  });
});
