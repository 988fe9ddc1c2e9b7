// Password hashing with argon2id through Bun.password (async: it runs off the event loop).

export interface HashingCost {
  /** KiB of memory per hash. */
  memoryCost: number;
  /** Passes over that memory. */
  timeCost: number;
}

/** OWASP's baseline for argon2id: 19 MiB, 2 passes; affordable on a small VPS. */
export const DEFAULT_HASHING: HashingCost = { memoryCost: 19_456, timeCost: 2 };

export class PasswordHasher {
  private dummy: Promise<string> | undefined;

  constructor(private readonly cost: HashingCost = DEFAULT_HASHING) {}

  hash(password: string): Promise<string> {
    return Bun.password.hash(password, { algorithm: 'argon2id', ...this.cost });
  }

  verify(password: string, hash: string): Promise<boolean> {
    return Bun.password.verify(password, hash, 'argon2id');
  }

  /**
   * Spends the time of one verification without a user to check against, so that an
   * unknown e-mail is answered as slowly as a wrong password.
   */
  async verifyNothing(password: string): Promise<false> {
    this.dummy ??= this.hash(crypto.randomUUID());
    await this.verify(password, await this.dummy);
    return false;
  }
}
