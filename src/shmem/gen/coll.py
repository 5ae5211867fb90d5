"""Team collectives (placeholder until team.c and coll.c exist): no routines yet."""


def functions():
    return []


def generics():
    return []
