import { describe, expect, it } from 'vitest';
import { describeLocation, resolveStoreLocation } from '../location.js';
import { parsePostgresUrl } from './connection.js';

describe('postgres URLs', () => {
  it('takes loci parameters off the URL and passes the rest to pg', () => {
    const target = parsePostgresUrl('postgres://loci:pw@db.internal:5433/loci?namespace=Acme_API&pool=8&ef_search=200&sslmode=require');
    expect(target).toMatchObject({ namespace: 'acme_api', schema: 'loci_acme_api', poolSize: 8, efSearch: 200 });
    expect(target.connectionString).toBe('postgres://loci:pw@db.internal:5433/loci?sslmode=require');
    expect(target.display).toBe('postgres://loci:***@db.internal:5433/loci?sslmode=require');
    // pg also reads a password from the query: kept for the connection, never shown.
    const queried = parsePostgresUrl('postgres://loci@db/x?password=s3cret&sslpassword=k3y&sslmode=require');
    expect(queried.connectionString).toContain('password=s3cret');
    expect(queried.display).toBe('postgres://loci@db/x?password=***&sslpassword=***&sslmode=require');
    expect(describeLocation(resolveStoreLocation('/repo', 'postgres://loci@db/x?password=s3cret&namespace=a'))).not.toContain('s3cret');
    expect(parsePostgresUrl('postgresql://db/x')).toMatchObject({ namespace: 'default', poolSize: 4, efSearch: 200 });
    expect(parsePostgresUrl('postgres://db/x?namespace=a', { namespaceSuffix: '_memory' }).schema).toBe('loci_a_memory');
  });

  it('refuses bad namespaces and numbers with a message that says what is allowed', () => {
    for (const url of ['postgres://db/x?namespace=a-b', 'postgres://db/x?namespace=', `postgres://db/x?namespace=${'a'.repeat(49)}`]) {
      expect(() => parsePostgresUrl(url)).toThrow(/a-z, 0-9 and _/);
    }
    expect(() => parsePostgresUrl('postgres://db/x?pool=0')).toThrow(/1 to 64/);
    expect(() => parsePostgresUrl('postgres://db/x?ef_search=abc')).toThrow(/10 to 1000/);
  });

  it('prints a store location without its password, naming the namespace', () => {
    const location = resolveStoreLocation('/repo', 'postgres://u:top-secret@h/db?namespace=team');
    expect(describeLocation(location)).toBe('postgres://u:***@h/db#team');
  });
});
