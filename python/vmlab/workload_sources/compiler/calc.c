/* The S1 compiler workload's input: the front half of a small calculator
 * language (lexer, recursive-descent expression parser building an AST, a
 * symbol hash table), as a real C translation unit. GCC's cc1 compiles it:
 * `-fsyntax-only` for the small trace (cc1's front end: preprocessing,
 * lexing, parsing, type checking), `-O0` for the full one (front end, GIMPLE,
 * RTL expansion, register allocation, assembly output). It includes no system
 * header, so cc1 sees the same tokens on every machine and the trace depends
 * only on the cc1 binary. The program itself also builds and runs:
 * `cc -o calc calc.c && ./calc`. */

typedef unsigned long size_t;
extern void *malloc(size_t);
extern void *calloc(size_t, size_t);
extern void free(void *);
extern int printf(const char *, ...);
extern int snprintf(char *, size_t, const char *, ...);
extern size_t strlen(const char *);
extern int strcmp(const char *, const char *);
extern void *memcpy(void *, const void *, size_t);

enum tok_kind { T_END, T_NUM, T_IDENT, T_PLUS, T_MINUS, T_STAR, T_SLASH, T_PERCENT,
                T_LPAREN, T_RPAREN, T_ASSIGN, T_SEMI, T_LT, T_GT, T_EQ, T_WHILE,
                T_PRINT, T_LBRACE, T_RBRACE, T_IF, T_ELSE, T_ERROR };

struct token { enum tok_kind kind; long value; char name[32]; int line; };

struct lexer { const char *src; size_t pos; int line; struct token cur; };

static int is_digit(int c) { return c >= '0' && c <= '9'; }
static int is_alpha(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int is_space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

static void next_token(struct lexer *lx) {
    const char *s = lx->src;
    while (is_space(s[lx->pos]) || s[lx->pos] == '#') {
        if (s[lx->pos] == '#') {
            while (s[lx->pos] && s[lx->pos] != '\n') lx->pos++;
            continue;
        }
        if (s[lx->pos] == '\n') lx->line++;
        lx->pos++;
    }
    struct token *t = &lx->cur;
    t->line = lx->line;
    t->name[0] = 0;
    int c = s[lx->pos];
    if (!c) { t->kind = T_END; return; }
    if (is_digit(c)) {
        long v = 0;
        while (is_digit(s[lx->pos])) v = v * 10 + (s[lx->pos++] - '0');
        t->kind = T_NUM;
        t->value = v;
        return;
    }
    if (is_alpha(c)) {
        size_t n = 0;
        while (is_alpha(s[lx->pos]) || is_digit(s[lx->pos])) {
            if (n + 1 < sizeof t->name) t->name[n++] = s[lx->pos];
            lx->pos++;
        }
        t->name[n] = 0;
        if (!strcmp(t->name, "while")) t->kind = T_WHILE;
        else if (!strcmp(t->name, "print")) t->kind = T_PRINT;
        else if (!strcmp(t->name, "if")) t->kind = T_IF;
        else if (!strcmp(t->name, "else")) t->kind = T_ELSE;
        else t->kind = T_IDENT;
        return;
    }
    lx->pos++;
    switch (c) {
    case '+': t->kind = T_PLUS; break;
    case '-': t->kind = T_MINUS; break;
    case '*': t->kind = T_STAR; break;
    case '/': t->kind = T_SLASH; break;
    case '%': t->kind = T_PERCENT; break;
    case '(': t->kind = T_LPAREN; break;
    case ')': t->kind = T_RPAREN; break;
    case '{': t->kind = T_LBRACE; break;
    case '}': t->kind = T_RBRACE; break;
    case ';': t->kind = T_SEMI; break;
    case '<': t->kind = T_LT; break;
    case '>': t->kind = T_GT; break;
    case '=':
        if (s[lx->pos] == '=') { lx->pos++; t->kind = T_EQ; }
        else t->kind = T_ASSIGN;
        break;
    default: t->kind = T_ERROR; t->value = c; break;
    }
}

enum node_kind { N_NUM, N_VAR, N_BIN, N_NEG, N_ASSIGN, N_SEQ, N_WHILE, N_IF, N_PRINT };

struct node {
    enum node_kind kind;
    enum tok_kind op;
    long value;
    int slot;
    struct node *a, *b, *c;
};

#define NSYMS 256
struct symtab { char names[NSYMS][32]; int used[NSYMS]; int count; };

static unsigned hash_name(const char *s) {
    unsigned h = 2166136261u;
    while (*s) { h ^= (unsigned char)*s++; h *= 16777619u; }
    return h;
}

static int intern(struct symtab *st, const char *name) {
    unsigned h = hash_name(name) % NSYMS;
    for (unsigned i = 0; i < NSYMS; i++) {
        unsigned k = (h + i) % NSYMS;
        if (!st->used[k]) {
            st->used[k] = 1;
            memcpy(st->names[k], name, strlen(name) + 1);
            st->count++;
            return (int)k;
        }
        if (!strcmp(st->names[k], name)) return (int)k;
    }
    return -1;
}

struct parser { struct lexer lx; struct symtab syms; int errors; };

static struct node *mk(enum node_kind k, struct node *a, struct node *b) {
    struct node *n = calloc(1, sizeof *n);
    n->kind = k;
    n->a = a;
    n->b = b;
    return n;
}

static void expect(struct parser *p, enum tok_kind k) {
    if (p->lx.cur.kind != k) {
        printf("line %d: expected token %d, got %d\n", p->lx.cur.line, (int)k, (int)p->lx.cur.kind);
        p->errors++;
    }
    next_token(&p->lx);
}

static struct node *expr(struct parser *p);

static struct node *primary(struct parser *p) {
    struct token t = p->lx.cur;
    if (t.kind == T_NUM) {
        next_token(&p->lx);
        struct node *n = mk(N_NUM, 0, 0);
        n->value = t.value;
        return n;
    }
    if (t.kind == T_IDENT) {
        next_token(&p->lx);
        struct node *n = mk(N_VAR, 0, 0);
        n->slot = intern(&p->syms, t.name);
        return n;
    }
    if (t.kind == T_MINUS) {
        next_token(&p->lx);
        return mk(N_NEG, primary(p), 0);
    }
    if (t.kind == T_LPAREN) {
        next_token(&p->lx);
        struct node *n = expr(p);
        expect(p, T_RPAREN);
        return n;
    }
    printf("line %d: unexpected token %d\n", t.line, (int)t.kind);
    p->errors++;
    next_token(&p->lx);
    return mk(N_NUM, 0, 0);
}

static struct node *binary(struct parser *p, int level) {
    static const enum tok_kind ops[3][3] = {
        { T_LT, T_GT, T_EQ }, { T_PLUS, T_MINUS, T_END }, { T_STAR, T_SLASH, T_PERCENT } };
    if (level == 3) return primary(p);
    struct node *left = binary(p, level + 1);
    for (;;) {
        enum tok_kind k = p->lx.cur.kind;
        if (k == T_END || (k != ops[level][0] && k != ops[level][1] && k != ops[level][2])) return left;
        next_token(&p->lx);
        struct node *n = mk(N_BIN, left, binary(p, level + 1));
        n->op = k;
        left = n;
    }
}

static struct node *expr(struct parser *p) { return binary(p, 0); }

static struct node *statement(struct parser *p) {
    struct token t = p->lx.cur;
    if (t.kind == T_IDENT) {
        next_token(&p->lx);
        struct node *n = mk(N_ASSIGN, 0, 0);
        n->slot = intern(&p->syms, t.name);
        expect(p, T_ASSIGN);
        n->a = expr(p);
        expect(p, T_SEMI);
        return n;
    }
    if (t.kind == T_PRINT) {
        next_token(&p->lx);
        struct node *n = mk(N_PRINT, expr(p), 0);
        expect(p, T_SEMI);
        return n;
    }
    printf("line %d: bad statement\n", t.line);
    p->errors++;
    next_token(&p->lx);
    return mk(N_SEQ, 0, 0);
}

static int count_nodes(const struct node *n) {
    return n ? 1 + count_nodes(n->a) + count_nodes(n->b) + count_nodes(n->c) : 0;
}

static const char program[] =
    "# polynomial coefficients and their combinations\n"
    "a = 3; b = a * a - 4; c = (a + b) * (b - 7) % 11;\n"
    "d = -c + a * (b + c * (a - 1)); e = d / (a + 1) + d % 5;\n"
    "print a + b + c + d + e; print (2 + 3) * (7 - 4) - -1;\n";

int main(int argc, char **argv) {
    struct parser p = { { argc > 1 ? argv[1] : program, 0, 1, { T_END, 0, "", 0 } }, { { "" }, { 0 }, 0 }, 0 };
    next_token(&p.lx);
    struct node *prog = 0;
    while (p.lx.cur.kind != T_END) prog = mk(N_SEQ, prog, statement(&p));
    char buf[64];
    snprintf(buf, sizeof buf, "%d symbols, %d nodes, %d errors", p.syms.count, count_nodes(prog), p.errors);
    printf("%s\n", buf);
    return p.errors != 0;
}
