"""JavaScript and TypeScript: definitions, routes, process.env, Knex and Sequelize."""

from __future__ import annotations

import pytest
from indexer_helpers import entities, one, span

from cairn.indexer import Role, index_text

SERVER = """\
import express from 'express';
export const API_URL = process.env.API_URL ?? 'http://localhost';
export const handler = async (req) => process.env['TOKEN'];
export function helper() {}
function* ids() {}
class UserService extends Base {
  async find(id) { return id; }
  static create() {}
}
const app = express();
app.get('/users/:id', (req, res) => res.send('x'));
router.post("/orders", createOrder);
fastify.delete('/orders/:orderId', async () => {});
axios.get('/api/x', config);
cache.get('key');
"""


@pytest.mark.parametrize("path", ["src/server.js", "src/server.ts", "src/server.tsx"])
def test_definitions_routes_and_env(path: str) -> None:
    symbols = index_text(SERVER, path)
    assert entities(symbols) == [
        (f"{path}::API_URL", "constant", "introduce"),
        ("env/API_URL", "env", "reference"),
        (f"{path}::handler", "function", "introduce"),
        ("env/TOKEN", "env", "reference"),
        (f"{path}::helper", "function", "introduce"),
        (f"{path}::ids", "function", "introduce"),
        (f"{path}::UserService", "class", "introduce"),
        (f"{path}::UserService.find", "method", "introduce"),
        (f"{path}::UserService.create", "method", "introduce"),
        (f"{path}::app", "constant", "introduce"),
        ("route/GET /users/{id}", "route", "introduce"),
        ("route/POST /orders", "route", "introduce"),
        ("route/DELETE /orders/{orderId}", "route", "introduce"),
    ]
    assert one(symbols, "env/API_URL").name_range == span(SERVER, "API_URL", 1)
    assert one(symbols, "env/API_URL").range == span(SERVER, "process.env.API_URL")
    assert one(symbols, "env/TOKEN").name_range == span(SERVER, "'TOKEN'")
    assert one(symbols, f"{path}::UserService.find").name_range == span(SERVER, "find")
    route = one(symbols, "route/GET /users/{id}")
    assert route.name_range == span(SERVER, "'/users/:id'")
    assert route.range == span(SERVER, "app.get('/users/:id', (req, res) => res.send('x'))")


def test_typescript_only_declarations() -> None:
    text = (
        "abstract class Repo<T> {\n  abstract get(id: string): T;\n  save(x: T): void {}\n}\n"
        "interface Shape { area(): number }\n"
    )
    symbols = index_text(text, "src/repo.ts")
    assert entities(symbols) == [
        ("src/repo.ts::Repo", "class", "introduce"),
        ("src/repo.ts::Repo.get", "method", "introduce"),
        ("src/repo.ts::Repo.save", "method", "introduce"),
        ("src/repo.ts::Shape", "class", "introduce"),
    ]
    assert one(symbols, "src/repo.ts::Repo").name_range == span(text, "Repo")


KNEX = """\
exports.up = function (knex) {
  return knex.schema
    .createTable('users', (table) => {
      table.increments('id');
      table.string('email', 255).notNullable().unique();
      table.timestamps();
    });
};
exports.change = async (knex) => {
  await knex.schema.alterTable('orders', function (t) {
    t.decimal('total');
    t.dropColumn('subtotal');
    t.renameColumn('ref', 'reference');
  });
  await knex.schema.dropTableIfExists('old_things');
};
"""


@pytest.mark.parametrize("path", ["migrations/001_users.js", "migrations/001_users.ts"])
def test_knex_migrations(path: str) -> None:
    symbols = index_text(KNEX, path)
    assert one(symbols, "users", Role.INTRODUCE).name_range == span(KNEX, "'users'")
    assert one(symbols, "users.id", Role.INTRODUCE).name_range == span(KNEX, "'id'")
    email = one(symbols, "users.email", Role.INTRODUCE)
    assert email.name_range == span(KNEX, "'email'")
    assert email.range.start_line == email.name_range.start_line
    assert not [s for s in symbols if s.entity.startswith("users.") and "time" in s.entity]
    assert one(symbols, "orders", Role.REFERENCE).name_range == span(KNEX, "'orders'")
    assert one(symbols, "orders.total", Role.INTRODUCE).name_range == span(KNEX, "'total'")
    assert one(symbols, "orders.subtotal", Role.REMOVE).name_range == span(KNEX, "'subtotal'")
    assert one(symbols, "orders.ref", Role.REMOVE).name_range == span(KNEX, "'ref'")
    assert one(symbols, "orders.reference", Role.INTRODUCE).name_range == span(KNEX, "'reference'")
    assert one(symbols, "old_things", Role.REMOVE).name_range == span(KNEX, "'old_things'")


SEQUELIZE = """\
module.exports = {
  async up(queryInterface, Sequelize) {
    await queryInterface.createTable('accounts', {
      id: { type: Sequelize.INTEGER, primaryKey: true },
      'plan_name': { type: Sequelize.STRING },
    });
    await queryInterface.addColumn('users', 'avatar', { type: Sequelize.STRING });
    await queryInterface.removeColumn('users', 'legacy');
    await queryInterface.renameColumn('users', 'nick', 'nickname');
  },
};
"""


def test_sequelize_migrations() -> None:
    symbols = index_text(SEQUELIZE, "migrations/20240101-accounts.js")
    assert one(symbols, "accounts", Role.INTRODUCE).name_range == span(SEQUELIZE, "'accounts'")
    assert one(symbols, "accounts.id", Role.INTRODUCE).name_range == span(SEQUELIZE, "id")
    assert one(symbols, "accounts.plan_name").name_range == span(SEQUELIZE, "'plan_name'")
    assert one(symbols, "users.avatar", Role.INTRODUCE).name_range == span(SEQUELIZE, "'avatar'")
    assert one(symbols, "users.legacy", Role.REMOVE).name_range == span(SEQUELIZE, "'legacy'")
    assert one(symbols, "users.nick", Role.REMOVE).name_range == span(SEQUELIZE, "'nick'")
    assert one(symbols, "users.nickname", Role.INTRODUCE).name_range == span(
        SEQUELIZE, "'nickname'"
    )
