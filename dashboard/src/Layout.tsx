import type { ReactNode } from 'react';
import { Link, usePath } from './router';
import { useSession } from './session';
import { HomePage } from './pages/Home';
import { KeysPage } from './pages/Keys';
import { WebhooksPage } from './pages/Webhooks';
import { EventsPage } from './pages/Events';
import { TransactionsPage } from './pages/Transactions';
import { SchedulesPage } from './pages/Schedules';
import { CustomersPage } from './pages/Customers';
import { DecisionsPage } from './pages/Decisions';
import { MerchantsPage } from './pages/Merchants';
import { ApplicationsPage } from './pages/Applications';
import { ParticipantsPage } from './pages/Participants';
import { TeamPage } from './pages/Team';
import { AuditLogPage } from './pages/AuditLog';
import type { ParticipantKind } from '../../functions/routes';

interface Entry {
  path: string;
  label: string;
  page: () => ReactNode;
  kinds: ParticipantKind[];
}

const PARTICIPANTS: ParticipantKind[] = ['bank', 'merchant', 'provider'];

/** The pages, in the navigation's order, and who sees each (DESIGN 8.4). */
const PAGES: Entry[] = [
  { path: '', label: 'Home', page: () => <HomePage />, kinds: [...PARTICIPANTS, 'operator'] },
  { path: 'keys', label: 'API keys', page: () => <KeysPage />, kinds: PARTICIPANTS },
  { path: 'webhooks', label: 'Webhooks', page: () => <WebhooksPage />, kinds: PARTICIPANTS },
  { path: 'events', label: 'Events', page: () => <EventsPage />, kinds: PARTICIPANTS },
  { path: 'transactions', label: 'Transactions', page: () => <TransactionsPage />, kinds: PARTICIPANTS },
  { path: 'schedules', label: 'Schedules', page: () => <SchedulesPage />, kinds: ['merchant'] },
  { path: 'customers', label: 'Customers', page: () => <CustomersPage />, kinds: ['bank'] },
  { path: 'decisions', label: 'Decisions', page: () => <DecisionsPage />, kinds: ['bank'] },
  { path: 'merchants', label: 'Merchants', page: () => <MerchantsPage />, kinds: ['provider'] },
  { path: 'applications', label: 'Applications', page: () => <ApplicationsPage />, kinds: ['operator'] },
  { path: 'participants', label: 'Participants', page: () => <ParticipantsPage />, kinds: ['operator'] },
  { path: 'team', label: 'Team', page: () => <TeamPage />, kinds: PARTICIPANTS },
  { path: 'audit-log', label: 'Audit log', page: () => <AuditLogPage />, kinds: PARTICIPANTS },
];

export function Layout() {
  const s = useSession();
  const path = usePath();
  const kind = s.acting!.kind;
  const pages = PAGES.filter((p) => p.kinds.includes(kind));
  const current = pages.find((p) => p.path === path) ?? pages[0]!;
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="top">
        <span className="brand">idpay</span>
        <span className={`stage ${s.config.stage}`}>{s.config.stage === 'live' ? 'Live' : 'Sandbox'}</span>
        {s.memberships.length > 1 ? (
          <label className="switch">
            <span>Participant</span>
            <select value={s.current?.participantId} onChange={(e) => s.choose(e.target.value)}>
              {s.memberships.map((m) => (
                <option key={m.participantId} value={m.participantId}>
                  {m.name ?? m.participantId} ({m.kind})
                </option>
              ))}
            </select>
          </label>
        ) : (
          <span className="who">{s.current ? `${s.current.name ?? s.current.participantId} (${s.current.kind})` : 'Operator'}</span>
        )}
        {s.current && <span className="role">Role: {s.current.role}</span>}
        <button type="button" className="secondary" onClick={s.signOut}>
          Sign out
        </button>
      </header>
      <nav aria-label="Main">
        <ul>
          {pages.map((p) => (
            <li key={p.path}>
              <Link to={p.path} aria-current={p === current ? 'page' : undefined}>
                {p.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        {current.page()}
      </main>
    </div>
  );
}
