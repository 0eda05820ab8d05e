// The JWTs a client signs for the authorization server: a client assertion (client_secret_jwt, RFC 7523)
// and a DPoP proof (RFC 9449), each with a jti of its own.
import { createHmac, generateKeyPairSync, randomBytes, sign } from 'node:crypto';

const part = (value: object): string => Buffer.from(JSON.stringify(value)).toString('base64url');
const now = (): number => Math.floor(Date.now() / 1000);

/** A client assertion for `clientId`, signed with its client secret (HS256), for the issuer `audience`. */
export function clientAssertion(clientId: string, clientSecret: string, audience: string): string {
  const signed = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({
    iss: clientId,
    sub: clientId,
    aud: audience,
    jti: randomBytes(16).toString('base64url'),
    iat: now(),
    exp: now() + 60,
  })}`;
  return `${signed}.${createHmac('sha256', clientSecret).update(signed).digest('base64url')}`;
}

/** A DPoP proof for a POST to `url`, signed (ES256) by a key made for it, whose public key it carries. */
export function dpopProof(url: string): string {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const signed = `${part({ typ: 'dpop+jwt', alg: 'ES256', jwk: publicKey.export({ format: 'jwk' }) })}.${part({
    jti: randomBytes(16).toString('base64url'),
    htm: 'POST',
    htu: url,
    iat: now(),
  })}`;
  return `${signed}.${sign('sha256', Buffer.from(signed), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url')}`;
}
