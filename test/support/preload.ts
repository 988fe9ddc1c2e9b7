// Loaded before every test file (bunfig.toml): when the whole run ends, kill the child
// processes and remove the temporary folders that tests registered in cleanup.ts. The
// exit handler covers a run that ends without reaching afterAll (an interrupted run).

import { afterAll } from 'bun:test';
import { cleanUp, cleanUpNow } from './cleanup.ts';

afterAll(cleanUp, 30_000);
process.on('exit', cleanUpNow);
