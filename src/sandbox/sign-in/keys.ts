/**
 * The RS256 key the sandbox signs ID tokens with: one per sandbox instance,
 * made on first use, never persisted. Its public half is published as a JSON
 * Web Key Set at /.well-known/jwks.json under a `kid` the tokens name.
 */
import { randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, type CryptoKey, type JWK } from 'jose';

export const ID_TOKEN_ALG = 'RS256';

interface KeyPair {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export class SigningKeys {
  private pair: Promise<KeyPair> | undefined;

  /** The key pair, generated once (concurrent callers share the same promise). */
  current(): Promise<KeyPair> {
    this.pair ??= generate();
    return this.pair;
  }

  async jwks(): Promise<{ keys: JWK[] }> {
    const { publicJwk } = await this.current();
    return { keys: [publicJwk] };
  }
}

async function generate(): Promise<KeyPair> {
  const { privateKey, publicKey } = await generateKeyPair(ID_TOKEN_ALG, { modulusLength: 2048 });
  const kid = randomBytes(8).toString('hex');
  const publicJwk: JWK = { ...(await exportJWK(publicKey)), kid, alg: ID_TOKEN_ALG, use: 'sig' };
  return { kid, privateKey, publicJwk };
}
