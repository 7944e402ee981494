"""Several bot processes on one PostgreSQL database and one token: one bot.

With ``DURAK_DATABASE_URL`` set, every process started with the same settings is a member
of the bot (:mod:`bot.cluster.member`); nothing else is set for it. Each finds its part by
itself, through leases in the database (:mod:`bot.cluster.leases`):

* **Shards.** Every table belongs to one of 64 shards, by its chat (a group's tables to
  the group's, a game against the computer to its player's private chat). Each shard is
  leased to one process at a time, for 3 seconds, renewed every second; the holder alone
  keeps the shard's running tables in memory, runs their clocks and computer players and
  draws their messages, as one process does today. Processes share the shards evenly: a
  new one gets its share from the others, who give back their extras.
* **Updates.** In polling mode one process at a time polls (its own lease; a long poll
  never waits at Telegram past it, and a process taking polling over from one whose lease
  ran out waits for that lease's end, so no two polls overlap); in webhook
  mode every process receives posts. Whoever receives an update keeps it in the inbox with
  its shard (:mod:`bot.cluster.routing`) before Telegram is told, and the shard's holder
  handles it: at once if that is the receiver, else told by ``NOTIFY``. An update is done
  in the transaction of its effect, so one redelivered, or taken again by a new holder
  after a crash, is known by its ``update_id`` and never applied twice; every table write
  is compare-and-set on its version besides, so a holder that lost its lease without
  knowing cannot apply a stale move.
* **Pacing.** A private chat may get hands from tables held by several processes, and a
  group's shard may change hands twice in seconds: every chat's budget is shared in the
  database (:mod:`bot.cluster.pace`).
* **Failure.** SIGTERM gives every lease back at once, after the updates in hand and
  the sends under way finish: the others take over within a beat. A process killed loses
  its leases when they run out (3 s); the others take them over, load the tables and draw
  them again, handle what was kept and not done, and answer again the presses it marked
  done in its last seconds (a move saved, its answer maybe not arrived: Telegram refuses a
  second answer). A table is drawn only by the holder of its shard. When PostgreSQL
  restarts, every process waits and goes on (asyncpg's pool connects again); if it was
  away longer than a lease, polling stopped with its lease, and each process takes back
  its own shards, leaving the others theirs for a while, rather than the first one back
  taking them all.

Why PostgreSQL itself is the bus, rather than Redis Streams or NATS JetStream: the inbox
must be written durably before Telegram is told an update arrived, and an update is done
in the same transaction as its move; with the queue in the same database both are one
commit, with no second system to keep in step, back up, or lose. What the bus carries is
small: one ``NOTIFY`` per batch of updates (the holder then reads them by an index of the
pending ones), and the holder's read; a look every second catches a lost notification,
which therefore delays but never loses. A broker would add a network hop and a second
durability story for no gain at the rates one Telegram token allows.

May import every layer below it: the Mini App, the chat's views, the transport, the
renderers, the service, the base, the store. Only the programs and the wiring import it.
"""
