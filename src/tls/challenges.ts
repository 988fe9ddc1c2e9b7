// The answers to ACME's HTTP-01 challenges that are under way: the ACME client puts a
// token's key authorization here before it asks the server to check, and takes it away
// after; plain HTTP answers GET /.well-known/acme-challenge/{token} from it. On
// PostgreSQL the instance that orders may not be the one the server asks, so the
// client also keeps them in the database (see acme/), and `find` falls back on that.

/** Where ACME's HTTP-01 challenge asks (RFC 8555, section 8.3). */
export const CHALLENGE_PREFIX = '/.well-known/acme-challenge/';

export class ChallengeResponses {
  private readonly answers = new Map<string, string>();

  constructor(private elsewhere?: (token: string) => Promise<string | undefined>) {}

  /** Looks up the tokens this instance does not hold in `lookup` too (the database, once open). */
  answerAlsoFrom(lookup: (token: string) => Promise<string | undefined>): void {
    this.elsewhere = lookup;
  }

  put(token: string, keyAuthorization: string): void {
    this.answers.set(token, keyAuthorization);
  }

  remove(token: string): void {
    this.answers.delete(token);
  }

  /** The key authorization for `token`, or undefined: the challenge is not one of ours. */
  async find(token: string): Promise<string | undefined> {
    return this.answers.get(token) ?? (await this.elsewhere?.(token));
  }
}
