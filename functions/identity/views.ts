/** API shapes of people: applications and team members (DESIGN 8.3). */
import type { Membership } from './members';
import type { ApplicationItem } from './people-store';

export const toApiMember = (m: Membership) => ({ userId: m.userId, email: m.email ?? null, role: m.role, joinedAt: m.joinedAt });

export const toApiApplication = (a: ApplicationItem) => ({
  applicationId: a.applicationId,
  status: a.status,
  type: a.type,
  businessName: a.businessName,
  email: a.email,
  country: a.country,
  registrationNumber: a.registrationNumber,
  website: a.website ?? null,
  address: a.address,
  applicantEmail: a.applicantEmail ?? null,
  createdAt: a.createdAt,
  decidedAt: a.decidedAt ?? null,
  decidedBy: a.decidedBy ?? null,
  reason: a.reason ?? null,
  participantId: a.participantId ?? null,
});
