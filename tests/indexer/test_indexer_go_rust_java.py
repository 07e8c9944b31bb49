"""Go, Rust and Java: functions, types, methods (receivers, impl blocks), JPA, env."""

from __future__ import annotations

from indexer_helpers import entities, one, span

from cairn.indexer import Role, index_text

GO = """\
package server

import "os"

type Server struct{ addr string }

type Cache[K comparable, V any] struct{}

func (s *Server) Start() error { return nil }

func (c Cache[K, V]) Get(k K) V { var v V; return v }

func New() *Server { return &Server{addr: os.Getenv("LISTEN_ADDR")} }
"""


def test_go() -> None:
    symbols = index_text(GO, "internal/server.go")
    assert entities(symbols) == [
        ("internal/server.go::Server", "class", "introduce"),
        ("internal/server.go::Cache", "class", "introduce"),
        ("internal/server.go::Server.Start", "method", "introduce"),
        ("internal/server.go::Cache.Get", "method", "introduce"),
        ("internal/server.go::New", "function", "introduce"),
        ("env/LISTEN_ADDR", "env", "reference"),
    ]
    assert one(symbols, "internal/server.go::Server.Start").name_range == span(GO, "Start")
    assert one(symbols, "env/LISTEN_ADDR").name_range == span(GO, '"LISTEN_ADDR"')


RUST = """\
pub struct Stack<T> {
    items: Vec<T>,
}

pub enum Shape { Circle }

impl<T> Stack<T> {
    pub fn push(&mut self, item: T) {
        fn helper() {}
    }
}

impl std::fmt::Display for Stack<i32> {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result { Ok(()) }
}

fn main() {
    let key = std::env::var("API_KEY");
    let name = env!("CARGO_PKG_NAME");
}
"""


def test_rust() -> None:
    symbols = index_text(RUST, "src/lib.rs")
    assert entities(symbols) == [
        ("src/lib.rs::Stack", "class", "introduce"),
        ("src/lib.rs::Shape", "class", "introduce"),
        ("src/lib.rs::Stack.push", "method", "introduce"),
        ("src/lib.rs::Stack.push.helper", "function", "introduce"),
        ("src/lib.rs::Stack.fmt", "method", "introduce"),
        ("src/lib.rs::main", "function", "introduce"),
        ("env/API_KEY", "env", "reference"),
        ("env/CARGO_PKG_NAME", "env", "reference"),
    ]
    assert one(symbols, "src/lib.rs::Stack.push").name_range == span(RUST, "push")
    assert one(symbols, "env/API_KEY").name_range == span(RUST, '"API_KEY"')


JAVA = """\
package com.example;

@Entity
@Table(name = "app_users")
public class User {
    @Id
    private Long id;

    @Column(name = "email_address", nullable = false)
    private String email;

    @Column
    private String displayName;

    private transient String scratch;

    public User() {}

    public String secret() { return System.getenv("APP_SECRET"); }
}

@Entity
class OrderLine {
    @Column private int quantity;
}
"""


def test_java_classes_methods_and_jpa() -> None:
    symbols = index_text(JAVA, "src/main/java/com/example/User.java")
    file = "src/main/java/com/example/User.java"
    assert one(symbols, f"{file}::User").kind == "class"
    assert one(symbols, f"{file}::User.secret").kind == "method"
    assert one(symbols, f"{file}::User.User").kind == "method"
    assert one(symbols, "app_users", Role.INTRODUCE).name_range == span(JAVA, '"app_users"')
    assert one(symbols, "app_users.id").name_range == span(JAVA, "id", after="Long id")
    assert one(symbols, "app_users.email_address").name_range == span(JAVA, '"email_address"')
    assert one(symbols, "app_users.display_name").name_range == span(JAVA, "displayName")
    assert not [s for s in symbols if "scratch" in s.entity]
    assert one(symbols, "order_line", Role.INTRODUCE).name_range == span(JAVA, "OrderLine")
    assert one(symbols, "order_line.quantity").name_range == span(JAVA, "quantity")
    assert one(symbols, "env/APP_SECRET").name_range == span(JAVA, '"APP_SECRET"')


GO_ROUTES = """\
package api

func Routes(r *gin.Engine, c chi.Router, mux *http.ServeMux) {
\tr.GET("/users/:id", getUser)
\tc.Post("/orders", createOrder)
\tmux.HandleFunc("DELETE /items/{id}", deleteItem)
\tmux.Handle("/static/", files)
\tcache.Get("key")
}
"""


def test_go_routes() -> None:
    symbols = index_text(GO_ROUTES, "api/routes.go")
    routes = [(s.entity, s.name_range) for s in symbols if s.kind == "route"]
    assert routes == [
        ("route/GET /users/{id}", span(GO_ROUTES, '"/users/:id"')),
        ("route/POST /orders", span(GO_ROUTES, '"/orders"')),
        ("route/DELETE /items/{id}", span(GO_ROUTES, '"DELETE /items/{id}"')),
        ("route/ANY /static", span(GO_ROUTES, '"/static/"')),
    ]


SPRING = """\
@RestController
@RequestMapping("/api/users")
public class UserController {
    @GetMapping("/{id}")
    public User get(@PathVariable Long id) { return repo.find(id); }

    @PostMapping
    public User create(@RequestBody User user) { return repo.save(user); }

    @DeleteMapping(path = "/{id}")
    public void delete(@PathVariable Long id) {}
}
"""


def test_spring_routes_under_the_class_mapping() -> None:
    symbols = index_text(SPRING, "src/main/java/UserController.java")
    routes = [(s.entity, s.name_range) for s in symbols if s.kind == "route"]
    assert routes == [
        ("route/GET /api/users/{id}", span(SPRING, '"/{id}"')),
        ("route/POST /api/users", span(SPRING, "PostMapping")),
        ("route/DELETE /api/users/{id}", span(SPRING, '"/{id}"', 1)),
    ]
    get = one(symbols, "route/GET /api/users/{id}")
    assert get.range.start_line == 3 and get.range.end_line == 4


AXUM = """\
pub fn app() -> Router {
    Router::new()
        .route("/users/:id", get(show_user))
        .route("/users", get(list_users).post(create_user))
}
"""


def test_axum_routes() -> None:
    symbols = index_text(AXUM, "src/app.rs")
    assert [(s.entity, s.name_range) for s in symbols if s.kind == "route"] == [
        ("route/GET /users/{id}", span(AXUM, '"/users/:id"')),
        ("route/GET /users", span(AXUM, '"/users"')),
        ("route/POST /users", span(AXUM, '"/users"')),
    ]
