// drizzle-kit reads this to generate SQL migrations from a schema: SQLite's into
// drizzle/sqlite/ (the default), PostgreSQL's into drizzle/postgres/ with
// KURZ_DIALECT=postgres (`bun run db:generate` and `bun run db:generate:pg`).
// Migrations are applied by kurz itself at start-up (src/store/*/migrate.ts).
import { defineConfig } from 'drizzle-kit';

export default process.env.KURZ_DIALECT === 'postgres'
  ? defineConfig({
      dialect: 'postgresql',
      schema: './src/store/postgres/schema.ts',
      out: './drizzle/postgres',
    })
  : defineConfig({
      dialect: 'sqlite',
      schema: './src/store/sqlite/schema.ts',
      out: './drizzle/sqlite',
    });
