package oracle
