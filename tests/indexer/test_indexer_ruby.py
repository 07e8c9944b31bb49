"""Ruby: Rails migrations and ENV reads."""

from __future__ import annotations

from indexer_helpers import one, span

from cairn.indexer import Role, index_text

MIGRATION = """\
class AddEmailToUsers < ActiveRecord::Migration[7.1]
  def change
    add_column :users, :email, :string, null: false
    remove_column :users, :legacy, :string
    rename_column :users, :nick, :nickname
    change_column :users, :bio, :text
    add_reference :users, :org, foreign_key: true
    create_table :orders do |t|
      t.string :status, :channel, null: false
      t.references :customer
      t.timestamps
      t.index :status
    end
    change_table :orders do |t|
      t.remove :channel
      t.integer :total
    end
    rename_table :sessions, :user_sessions
    drop_table :old_things
    url = ENV["REDIS_URL"] || ENV.fetch("CACHE_URL")
  end
end
"""


def test_rails_migration() -> None:
    s = index_text(MIGRATION, "db/migrate/20240101000000_add_email_to_users.rb")
    assert one(s, "users.email", Role.INTRODUCE).name_range == span(MIGRATION, ":email")
    assert one(s, "users.legacy", Role.REMOVE).name_range == span(MIGRATION, ":legacy")
    assert one(s, "users.nick", Role.REMOVE).name_range == span(MIGRATION, ":nick")
    assert one(s, "users.nickname", Role.INTRODUCE).name_range == span(MIGRATION, ":nickname")
    assert one(s, "users.bio", Role.REFERENCE).name_range == span(MIGRATION, ":bio")
    assert one(s, "users.org_id", Role.INTRODUCE).name_range == span(MIGRATION, ":org")
    assert one(s, "orders", Role.INTRODUCE).name_range == span(MIGRATION, ":orders")
    status = one(s, "orders.status", Role.INTRODUCE)
    assert status.name_range == span(MIGRATION, ":status")
    assert status.range == span(MIGRATION, "t.string :status, :channel, null: false")
    assert one(s, "orders.channel", Role.INTRODUCE).name_range == span(MIGRATION, ":channel")
    assert one(s, "orders.customer_id").name_range == span(MIGRATION, ":customer")
    assert one(s, "orders.created_at").range == span(MIGRATION, "t.timestamps")
    assert one(s, "orders.updated_at").kind == "column"
    assert one(s, "orders", Role.REFERENCE).name_range == span(MIGRATION, ":orders", 1)
    assert one(s, "orders.channel", Role.REMOVE).name_range == span(MIGRATION, ":channel", 1)
    assert one(s, "orders.total", Role.INTRODUCE).name_range == span(MIGRATION, ":total")
    assert one(s, "sessions", Role.REMOVE).name_range == span(MIGRATION, ":sessions")
    assert one(s, "user_sessions", Role.INTRODUCE).name_range == span(MIGRATION, ":user_sessions")
    assert one(s, "old_things", Role.REMOVE).name_range == span(MIGRATION, ":old_things")
    assert one(s, "env/REDIS_URL").name_range == span(MIGRATION, '"REDIS_URL"')
    assert one(s, "env/CACHE_URL").name_range == span(MIGRATION, '"CACHE_URL"')


ROUTES = """\
Rails.application.routes.draw do
  get "/users/:id", to: "users#show"
  post "orders", to: "orders#create"
  resources :photos
end
"""


def test_rails_routes() -> None:
    symbols = index_text(ROUTES, "config/routes.rb")
    assert [(s.entity, s.name_range) for s in symbols] == [
        ("route/GET /users/{id}", span(ROUTES, '"/users/:id"')),
        ("route/POST /orders", span(ROUTES, '"orders"')),
    ]
    assert index_text(ROUTES, "app/models/user.rb") == []
