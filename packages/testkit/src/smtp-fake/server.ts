import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { parseMail, type ParsedMail } from './mime.js';

export interface CapturedMail extends ParsedMail {
  from: string;
  to: string[];
  /** The AUTH user the client logged in with, if any. */
  user: string | null;
  raw: string;
}

export interface FakeSmtp {
  host: string;
  port: number;
  messages: CapturedMail[];
  /** Resolves with the first message (already received or arriving) that matches, or rejects after `timeoutMs`. */
  waitFor(predicate: (m: CapturedMail) => boolean, timeoutMs?: number): Promise<CapturedMail>;
  reset(): void;
  close(): Promise<void>;
}

export interface FakeSmtpOptions {
  port?: number;
  /** When set, AUTH must use one of these user → password pairs; otherwise any login is accepted. */
  users?: Record<string, string>;
}

/**
 * An SMTP server on loopback that captures what a mailer sends (plain SMTP with optional AUTH
 * PLAIN/LOGIN, no TLS), for tests of verification and password-reset mail.
 */
export async function startFakeSmtp(opts: FakeSmtpOptions = {}): Promise<FakeSmtp> {
  const messages: CapturedMail[] = [];
  const waiters: Array<{ predicate: (m: CapturedMail) => boolean; resolve: (m: CapturedMail) => void }> = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    authMethods: ['PLAIN', 'LOGIN'],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, cb) {
      if (opts.users && opts.users[auth.username ?? ''] !== auth.password) return cb(new Error('Invalid username or password'));
      cb(null, { user: auth.username });
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const mail: CapturedMail = {
          ...parseMail(raw),
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          user: typeof session.user === 'string' ? session.user : null,
          raw,
        };
        messages.push(mail);
        for (const w of [...waiters]) {
          if (w.predicate(mail)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(mail);
          }
        }
        cb();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.server.address() as AddressInfo;
  return {
    host: '127.0.0.1',
    port,
    messages,
    waitFor(predicate, timeoutMs = 5000) {
      const found = messages.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const entry = { predicate, resolve: (m: CapturedMail) => (clearTimeout(timer), resolve(m)) };
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(entry), 1);
          reject(new Error(`no matching mail within ${timeoutMs} ms`));
        }, timeoutMs);
        waiters.push(entry);
      });
    },
    reset() {
      messages.length = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
