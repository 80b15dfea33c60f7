-- Tables of Mimic's revenue-recovery example (examples/revenue-recovery-agent/prisma/schema.prisma
-- in mimicailab/mimic), written as plain PostgreSQL DDL. `mimic seed` only truncates and
-- inserts, so scripts/mimic_stack.py runs this file first. Idempotent: it drops and recreates.
-- Prisma enums become PostgreSQL enum types; DateTime becomes TIMESTAMP(3) (UTC, no zone),
-- as `prisma migrate` would create them.

SET client_min_messages = warning;

DROP TABLE IF EXISTS support_notes, risk_flags, payments, invoices, subscriptions, customers CASCADE;
DROP TYPE IF EXISTS "Plan", "CustomerStatus", "SubscriptionStatus", "BillingInterval",
    "InvoiceStatus", "PaymentStatus", "FailureReason", "RiskFlagType", "Severity" CASCADE;

CREATE TYPE "Plan" AS ENUM ('starter', 'pro', 'enterprise');
CREATE TYPE "CustomerStatus" AS ENUM ('active', 'past_due', 'canceled', 'churned');
CREATE TYPE "SubscriptionStatus" AS ENUM ('active', 'past_due', 'canceled', 'trialing');
CREATE TYPE "BillingInterval" AS ENUM ('month', 'year');
CREATE TYPE "InvoiceStatus" AS ENUM ('draft', 'open', 'paid', 'void', 'uncollectible');
CREATE TYPE "PaymentStatus" AS ENUM ('succeeded', 'failed', 'refunded');
CREATE TYPE "FailureReason" AS ENUM (
    'insufficient_funds', 'card_declined', 'expired_card', 'lost_card', 'fraudulent'
);
CREATE TYPE "RiskFlagType" AS ENUM (
    'billing_dispute', 'churn_risk', 'support_escalation', 'contract_concern',
    'competitor_mentioned'
);
CREATE TYPE "Severity" AS ENUM ('low', 'medium', 'high');

-- Subscription customer. mrr_cents is the MRR the product database believes in; the
-- reconciliation skill compares it against the live Stripe subscription state.
CREATE TABLE customers (
    id                 SERIAL PRIMARY KEY,
    name               TEXT NOT NULL,
    email              TEXT NOT NULL UNIQUE,
    company            TEXT,
    stripe_customer_id TEXT UNIQUE,
    plan               "Plan" NOT NULL DEFAULT 'starter',
    status             "CustomerStatus" NOT NULL DEFAULT 'active',
    mrr_cents          INTEGER NOT NULL DEFAULT 0,
    created_at         TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at         TIMESTAMP(3) NOT NULL
);

CREATE TABLE subscriptions (
    id                     SERIAL PRIMARY KEY,
    customer_id            INTEGER NOT NULL REFERENCES customers (id)
                               ON DELETE RESTRICT ON UPDATE CASCADE,
    stripe_subscription_id TEXT UNIQUE,
    plan                   "Plan" NOT NULL DEFAULT 'starter',
    status                 "SubscriptionStatus" NOT NULL DEFAULT 'active',
    interval               "BillingInterval" NOT NULL DEFAULT 'month',
    amount_cents           INTEGER NOT NULL,
    current_period_start   TIMESTAMP(3) NOT NULL,
    current_period_end     TIMESTAMP(3) NOT NULL,
    canceled_at            TIMESTAMP(3),
    -- Free-text reason captured at cancellation (Stripe's cancellation_details.reason when
    -- available, otherwise from the exit interview or support context).
    cancellation_reason    TEXT,
    created_at             TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE TABLE invoices (
    id                SERIAL PRIMARY KEY,
    customer_id       INTEGER NOT NULL REFERENCES customers (id)
                          ON DELETE RESTRICT ON UPDATE CASCADE,
    stripe_invoice_id TEXT UNIQUE,
    amount_cents      INTEGER NOT NULL,
    status            "InvoiceStatus" NOT NULL DEFAULT 'draft',
    due_date          TIMESTAMP(3) NOT NULL,
    paid_at           TIMESTAMP(3),
    created_at        TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE TABLE payments (
    id                       SERIAL PRIMARY KEY,
    customer_id              INTEGER NOT NULL REFERENCES customers (id)
                                 ON DELETE RESTRICT ON UPDATE CASCADE,
    stripe_payment_id        TEXT UNIQUE,
    stripe_payment_intent_id TEXT UNIQUE,
    amount_cents             INTEGER NOT NULL,
    currency                 TEXT NOT NULL DEFAULT 'usd',
    status                   "PaymentStatus" NOT NULL DEFAULT 'succeeded',
    payment_method           TEXT NOT NULL DEFAULT 'card',
    -- Decline reason on failed charges.
    failure_reason           "FailureReason",
    created_at               TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- Internal at-risk markers set by a CSM, support or automated heuristics.
CREATE TABLE risk_flags (
    id          SERIAL PRIMARY KEY,
    customer_id INTEGER NOT NULL REFERENCES customers (id)
                    ON DELETE RESTRICT ON UPDATE CASCADE,
    flag_type   "RiskFlagType" NOT NULL,
    severity    "Severity" NOT NULL DEFAULT 'medium',
    set_by      TEXT NOT NULL,  -- CSM, support agent or "system"
    set_at      TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    resolved_at TIMESTAMP(3),
    note        TEXT
);
CREATE INDEX risk_flags_customer_id_set_at_idx ON risk_flags (customer_id, set_at);

-- Free-text notes from support tickets, sales calls and CSM check-ins.
CREATE TABLE support_notes (
    id          SERIAL PRIMARY KEY,
    customer_id INTEGER NOT NULL REFERENCES customers (id)
                    ON DELETE RESTRICT ON UPDATE CASCADE,
    author      TEXT NOT NULL,
    body        TEXT NOT NULL,
    tags        TEXT,  -- comma-separated: billing, churn-risk, downgrade, escalation, ...
    created_at  TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX support_notes_customer_id_created_at_idx ON support_notes (customer_id, created_at);
