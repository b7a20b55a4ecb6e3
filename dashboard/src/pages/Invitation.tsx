import { useState } from 'react';
import { unwrap } from '../api';
import { when } from '../format';
import { navigate } from '../router';
import { useSession } from '../session';
import { ActionButton, ErrorMessage, Loading, Page, useLoad } from '../ui';

/** The dashboard's address of an invitation (the link its e-mail carries), the invited address in its fragment. */
export const invitationLink = (token: string, email: string) =>
  `${window.location.origin}${import.meta.env.BASE_URL}invitations/${encodeURIComponent(token)}#email=${encodeURIComponent(email)}`;

const KINDS = { bank: 'bank', merchant: 'merchant', provider: 'payment provider' } as const;

/**
 * `/dashboard/invitations/<token>` (DESIGN 9.7), the link in the invitation e-mail: who
 * invites, to what, with which role, and `Accept invitation` for the person signed in with
 * the invited e-mail address (anyone else is told why not). A person not signed in met the
 * sign-in form at this address first, and came back to it.
 */
export function InvitationPage({ token }: { token: string }) {
  const s = useSession();
  const [done, setDone] = useState(false);
  const invitation = useLoad(
    // API: release 3 sign-out/invitations
    () => unwrap(s.client.GET('/v1/invitations/{token}', { params: { path: { token } } })),
    [token],
  );
  const signOut = (
    <button type="button" className="secondary" onClick={() => void s.signOut()}>
      Sign out
    </button>
  );
  const inv = invitation.data;
  const mine = inv && s.email && inv.email.toLowerCase() === s.email.toLowerCase();
  return (
    <main className="signin">
      <Page title="Invitation" actions={signOut}>
        {invitation.loading && <Loading />}
        <ErrorMessage error={invitation.error} />
        {inv && (
          <>
            {inv.status === 'pending' && (
              <>
                <p data-testid="invitation-summary">
                  {inv.invitedBy?.email ?? 'The idpay team'} invites {inv.email} to join {inv.participantName ?? 'a team'} (
                  {KINDS[inv.participantType]}) on idpay as <strong>{inv.role}</strong>.
                </p>
                <dl className="facts">
                  <dt>Team</dt>
                  <dd>{inv.participantName ?? '—'}</dd>
                  <dt>Role</dt>
                  <dd>{inv.role}</dd>
                  <dt>Invited by</dt>
                  <dd>{inv.invitedBy?.email ?? 'The idpay team'}</dd>
                  <dt>For</dt>
                  <dd>{inv.email}</dd>
                  <dt>Expires</dt>
                  <dd>{when(inv.expiresAt)}</dd>
                </dl>
              </>
            )}
            {s.stored.type === 'operator' ? (
              <p className="error">The operator cannot accept an invitation: sign out, then sign in as the invited person.</p>
            ) : inv.status !== 'pending' ? (
              <p className="error" role="alert">
                {inv.status === 'accepted'
                  ? 'This invitation has been accepted already.'
                  : inv.status === 'expired'
                    ? 'This invitation has expired. Ask the person who invited you for a new one.'
                    : 'This invitation was withdrawn. Ask the person who invited you for a new one.'}
              </p>
            ) : !mine ? (
              <p className="error" role="alert">
                This invitation is for {inv.email}, and you are signed in as {s.email}. Sign out, then sign in or create an account with{' '}
                {inv.email} to accept it.
              </p>
            ) : done ? (
              <p role="status" className="notice">
                You joined {inv.participantName}.
              </p>
            ) : (
              <ActionButton
                label="Accept invitation"
                action={async () => {
                  const joined = await unwrap(s.client.POST('/v1/team/invitations/{token}/accept', { params: { path: { token } } }));
                  setDone(true);
                  await s.reload();
                  s.choose(joined.participantId);
                  navigate('');
                }}
              />
            )}
          </>
        )}
      </Page>
    </main>
  );
}
