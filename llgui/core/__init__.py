"""Pure computation: types, metric adapters, penalty engine, cost model, policy, DET.

Never imports Qt; a test holds this true.
"""
