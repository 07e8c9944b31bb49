# ruff: noqa: E501  (fixture files keep their real line lengths)
"""Realistic migration histories for one small app (users, orgs, payments), per dialect."""

from __future__ import annotations

from pathlib import Path

ALEMBIC = {
    # file names deliberately do not sort in graph order
    "zz_1a2b_create_users.py": '''"""create users

Revision ID: 1a2b
Revises:
Create Date: 2023-01-10 09:00:00.000000

"""
from alembic import op
import sqlalchemy as sa

revision = "1a2b"
down_revision = None


def upgrade():
    op.create_table(
        "users",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("email", sa.String(255), nullable=False),
    )


def downgrade():
    op.drop_table("users")
''',
    "aa_3c4d_add_orgs.py": '''"""add orgs

Revision ID: 3c4d
Revises: 1a2b
Create Date: 2023-02-01 10:00:00

"""
from alembic import op
import sqlalchemy as sa

revision = "3c4d"
down_revision = "1a2b"


def upgrade():
    op.create_table("orgs", sa.Column("id", sa.Integer(), primary_key=True))
    op.add_column("users", sa.Column("org_id", sa.Integer(), nullable=True))
    op.create_index("ix_users_org_id", "users", ["org_id"])


def downgrade():
    op.drop_column("users", "org_id")
    op.drop_table("orgs")
''',
    "mm_5e6f_email_verified.py": '''"""email verified flag (branch b)

Revision ID: 5e6f
Revises: 1a2b
Create Date: 2023-02-03 11:00:00

"""
from alembic import op
import sqlalchemy as sa

revision: str = "5e6f"
down_revision: str | None = "1a2b"


def upgrade() -> None:
    op.add_column("users", sa.Column("email_verified", sa.Boolean(), server_default="f"))
    with op.batch_alter_table("users") as batch_op:
        batch_op.alter_column("email", new_column_name="login_email")


def downgrade() -> None:
    op.drop_column("users", "email_verified")
''',
    "bb_7a8b_merge.py": '''"""merge heads

Revision ID: 7a8b
Revises: 3c4d, 5e6f
Create Date: 2023-02-05 12:00:00

"""
revision = "7a8b"
down_revision = ("3c4d", "5e6f")


def upgrade():
    pass


def downgrade():
    pass
''',
    "cc_9c0d_drop_verified.py": '''"""drop email_verified: double opt-in moved to the auth provider

Revision ID: 9c0d
Revises: 7a8b
Create Date: 2023-03-01 08:30:00

"""
from alembic import op
import sqlalchemy as sa

revision = "9c0d"
down_revision = "7a8b"


def upgrade():
    op.drop_column("users", "email_verified")
    op.alter_column("users", "login_email", type_=sa.String(320))
    op.execute("ALTER TABLE orgs ADD COLUMN plan text")
    op.execute(sa.text("ALTER TABLE orgs ADD COLUMN billing_email text"))
    op.rename_table("orgs", "organisations")


def downgrade():
    op.add_column("users", sa.Column("email_verified", sa.Boolean()))
''',
}

RAILS = {
    "20230110090000_create_users.rb": """class CreateUsers < ActiveRecord::Migration[7.0]
  def change
    create_table :users do |t|
      t.string :email, null: false
      t.references :org
      t.timestamps
    end
    add_index :users, :email, unique: true
  end
end
""",
    "20230201100000_add_stripe_customer_to_users.rb": """class AddStripeCustomerToUsers < ActiveRecord::Migration[7.0]
  def change
    add_column :users, :stripe_customer_id, :string
    rename_column :users, :email, :login_email
  end
end
""",
    "20230301083000_remove_stripe_customer.rb": """class RemoveStripeCustomer < ActiveRecord::Migration[7.0]
  def up
    remove_column :users, :stripe_customer_id, :string
    change_column :users, :login_email, :citext
    execute "ALTER TABLE users ADD COLUMN tz text"
    execute <<~SQL
      -- reporting needs the signup channel
      ALTER TABLE users ADD COLUMN signup_channel text;
    SQL
  end

  def down
    add_column :users, :stripe_customer_id, :string
  end
end
""",
}

FLYWAY = {
    "V1__create_users.sql": """-- Accounts start with an email login
CREATE TABLE users (
    id bigserial PRIMARY KEY,
    email text NOT NULL
);
""",
    "V2__add_payments.sql": """CREATE TABLE payments (
    id bigserial PRIMARY KEY,
    user_id bigint NOT NULL REFERENCES users(id),
    card_number text
);
INSERT INTO payments (user_id) SELECT id FROM users WHERE false;
""",
    "V10__tokenise_cards.sql": """-- PCI: store provider tokens, never card numbers
ALTER TABLE payments ADD COLUMN card_token text;
ALTER TABLE payments DROP COLUMN card_number;
""",
    "V2.1__email_verified.sql": """ALTER TABLE users ADD COLUMN email_verified boolean DEFAULT false;
""",
    "R__reporting_view.sql": """CREATE VIEW paid_users AS SELECT * FROM users;
""",
}


def write(folder: Path, files: dict[str, str]) -> Path:
    """Write a fixture's files into `folder` and return it."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


ADRS = {
    "0001-record-architecture-decisions.md": """# 1. Record architecture decisions

Date: 2022-11-01

## Status

Accepted

## Context

We need to record the architectural decisions made on this project.

## Decision

We will use Architecture Decision Records, as described by Michael Nygard.
""",
    "0002-use-stripe-for-payments.md": """---
status: accepted
date: 2023-01-15
deciders: payments team
entities: [deps/stripe, payments.card_token]
---
# Use Stripe for payments

## Context and Problem Statement

We need to take card payments without entering PCI scope.

## Considered Options

* Stripe
* Braintree

## Decision Outcome

Chosen option: "Stripe", because its tokens keep card data out of our database.
""",
    "0003-store-card-numbers.md": """---
status: rejected
date: 2023-01-20
superseded_by: ADR-0006
---
# Store card numbers ourselves

## Context and Problem Statement

Finance asked for raw card numbers in `payments` for reconciliation; see
[the payments model](../../src/payments.py) and `src/payments.py::charge`.

## Considered Options

* Store encrypted card numbers in payments.card_number
* Keep provider tokens only

## Decision Outcome

Rejected: storing card numbers puts the whole database in PCI scope.
""",
    "0004-use-braintree-for-payouts.md": """# 4. Use Braintree for payouts

Date: 2023-02-01

## Status

Superseded by [ADR-0005](0005-use-adyen-for-payouts.md)

## Context

Payouts need a provider; `deps/braintree` supports our markets.

## Decision

We will use Braintree for payouts.
""",
    "0005-use-adyen-for-payouts.md": """# 5. Use Adyen for payouts

Date: 2023-06-01

## Status

Accepted. Supersedes [ADR-0004](0004-use-braintree-for-payouts.md)

## Context

Braintree's payout fees doubled; `deps/braintree` is replaced by `deps/adyen`.

## Decision

We will use Adyen for payouts.
""",
    "0006-keep-card-fingerprints.md": """---
status: accepted
date: 2024-03-01
entities:
  - src/payments.py::charge
---
# Keep card fingerprints for reconciliation

## Context and Problem Statement

ADR-0003 rejected storing card numbers. Finance still needs to match refunds; the
provider's card fingerprint is not card data, so `src/payments.py::charge` keeps it.

## Decision Outcome

Store the fingerprint returned by the provider; revisit ADR-0003's rejection.
""",
}
