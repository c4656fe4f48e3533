"""The tournament hub: tables publish their journals over MQTT; the hub stores and shows them.

- :mod:`controller.hub.contract`: which journal fields the hub reads, and the fold into a
  table's state (shared by both sides).
- :mod:`controller.hub.topics`, :mod:`controller.hub.link`: topics and the broker connection.
- :mod:`controller.hub.outbox`, :mod:`controller.hub.publisher`: the table side.
- :mod:`controller.hub.store`, :mod:`controller.hub.service`, :mod:`controller.hub.http`,
  :mod:`controller.hub.server`: the hub (SQLite, subscriber, web server, director actions).

The full contract is in ``hardware_docs/hub.md``.
"""
