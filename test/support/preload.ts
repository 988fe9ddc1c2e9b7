// Loaded before every test file (bunfig.toml): when the whole run ends, kill the child
// processes and remove the temporary folders that tests registered in cleanup.ts. The
// exit handler covers a run that ends without reaching afterAll (an interrupted run).
// It also sets every test's default time limit: bun test reads none from bunfig.toml
// and would give each test 5 s, which a test that starts a server or checks a few dozen
// argon2 passwords can take on a machine busy with other work.

import { afterAll, setDefaultTimeout } from 'bun:test';
import { cleanUp, cleanUpNow } from './cleanup.ts';

setDefaultTimeout(20_000);
// Generous: on PostgreSQL the run's database holds a schema for every app of the run
// (thousands of tables), and dropping it took over 30 s on a machine busy with other work.
afterAll(cleanUp, 180_000);
process.on('exit', cleanUpNow);
